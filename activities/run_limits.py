"""The `run_limits` activity: the worker's own settings, which every run is held to.

The same function (`signoff/config/run_limits.py`) builds the limits that the one
RunRequest factory (`signoff/service/run_requests.py`) and `signoff triage` put in their
requests, so a request built from the settings is never clamped; only one that asks for
more than the worker allows is (see workflows/run_limits.py).
"""

from __future__ import annotations

from temporalio import activity

from activities.payments.registry import PaymentConnectors
from signoff.config.decision_signatures import VerificationKeys, raw_public_key
from signoff.config.run_limits import limits_from_settings
from signoff.config.settings import Settings
from workflows.run_limits import RUN_LIMITS_ACTIVITY, DecisionKey, RunLimits, RunLimitsRequest

__all__ = ["RunLimitsActivity", "limits_from_settings"]


class RunLimitsActivity:
    """`keys`: the worker's public decision keys, which the run checks signatures with
    (None: the run gets none, and asks `verify_decision` for every decision); `payments`:
    the connectors this worker refunds through, whose call budget a tenant's refund is
    given (None: the ledger's, no time for a platform's calls)."""

    def __init__(
        self,
        settings: Settings,
        keys: VerificationKeys | None = None,
        payments: PaymentConnectors | None = None,
    ) -> None:
        self._settings = settings
        self._keys = keys
        self._payments = payments

    @activity.defn(name=RUN_LIMITS_ACTIVITY)
    async def run_limits(self, request: RunLimitsRequest) -> RunLimits:
        """Run as a local activity: it reads only what this process holds, no I/O."""
        limits = limits_from_settings(self._settings, request.model)
        if self._payments is not None and request.tenant_id is not None:
            seconds = self._payments.refund_call_seconds(request.tenant_id)
            limits = limits.model_copy(update={"payment_call_seconds": seconds})
        if self._keys is None:
            return limits
        return limits.model_copy(
            update={
                "decision_keys": decision_keys(self._keys),
                "decision_max_age_seconds": self._settings.decision_max_age_seconds,
            }
        )


def decision_keys(keys: VerificationKeys) -> list[DecisionKey]:
    """The unretired public keys, as the run receives them (sorted: the same list on
    every worker that holds the same keys)."""
    return [
        DecisionKey(key_id=key_id, public_key=raw_public_key(keys.keys[key_id]).hex())
        for key_id in sorted(keys.keys)
        if key_id not in keys.retired
    ]
