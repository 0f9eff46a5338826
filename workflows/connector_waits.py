"""What an effect says when its connector cannot take it now, and what the run shows
while it waits for it (workflows/effect_waits.py): contracts only."""

from __future__ import annotations

from datetime import datetime

from workflows.contract_base import Contract

# The error type of a refund proposed while its payment platform's breaker is open: it
# is refused at once, before a reviewer is asked (nothing approved is lost by that).
PAYMENTS_SWITCHED_OFF = "PaymentsSwitchedOff"


class ConnectorWait(Contract):
    """An effect whose connector cannot take it now (its breaker is open, the platform
    said "not now"): nothing was done and its approvals stay valid, so the run waits
    and asks again (workflows/effect_waits.py)."""

    connector: str  # as `signoff connectors` names it, e.g. `payments:demo`
    # When the connector may take calls again (its breaker's cool-down); 0: unknown.
    retry_after_seconds: int = 0
    # How long an approved effect may wait for this connector, by its configuration;
    # None: until the approval expires.
    give_up_after_seconds: int | None = None


class EffectWaiting(Contract):
    """An approved action that waits for its connector (workflows/effect_waits.py)."""

    action_hash: str
    tool: str
    connector: str
    since: datetime
    next_try_at: datetime
    give_up_at: datetime
    tries: int
    last_answer: str = ""

    def line(self) -> str:
        """How `signoff status` and the run page say it."""
        return (
            f"approved; waiting for {self.connector} since {self.since:%Y-%m-%d %H:%M} UTC "
            f"(next try {self.next_try_at:%H:%M:%S} UTC, "
            f"gives up {self.give_up_at:%Y-%m-%d %H:%M} UTC)"
        )
