"""Settling actions whose outcome is unknown: did the refund happen or not?

A run lists such actions when the refund activity failed after every retry (see
workflows/unknown_effects.py). The ledger is the truth: the refund happened exactly
when a ledger row carries the action's idempotency key. This reads the run's list (its
outcome, or its live state) and looks each key up.

A "did not happen" is true as of the check: the run has stopped retrying, but a worker
stuck inside an old attempt could in principle still commit it later. The answer says
when it was checked, and a second reconcile checks again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from activities.store import refund_by_key
from signoff.run_listing import try_state
from signoff.runs import request_of_run
from workflows.agent_run import AgentRun
from workflows.contracts import RunOutcome
from workflows.unknown_effects import UnknownEffect


class ReconcileRefused(Exception):
    """The run's unknown actions cannot be read; the message says why and what to do."""


@dataclass(frozen=True)
class Settlement:
    effect: UnknownEffect
    happened: bool
    checked_at: datetime
    refund_id: str | None = None
    refunded_at: datetime | None = None
    approvers: tuple[str, ...] = ()

    def line(self) -> str:
        effect = self.effect
        if self.happened:
            when = f" at {self.refunded_at:%Y-%m-%d %H:%M:%S} UTC" if self.refunded_at else ""
            return (
                f"{effect.description}: HAPPENED, refund {self.refund_id}{when} "
                f"(approved by {', '.join(self.approvers) or 'nobody recorded'})"
            )
        return (
            f"{effect.description}: DID NOT HAPPEN, no ledger row carries its key "
            f"(checked {self.checked_at:%Y-%m-%d %H:%M:%S} UTC)"
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "action_hash": self.effect.action_hash,
            "idempotency_key": self.effect.idempotency_key,
            "order_id": self.effect.order_id,
            "amount": self.effect.amount,
            "currency": self.effect.currency,
            "happened": self.happened,
            "refund_id": self.refund_id,
            "refunded_at": self.refunded_at.isoformat() if self.refunded_at else None,
            "approvers": list(self.approvers),
            "checked_at": self.checked_at.isoformat(),
        }


async def unknown_effects_of(client: Client, run_id: str) -> tuple[str, list[UnknownEffect]]:
    """The run's tenant and the actions its outcome (or live state) lists as unknown."""
    handle = client.get_workflow_handle_for(AgentRun.run, run_id)
    try:
        description = await handle.describe()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            raise ReconcileRefused(
                f"No run with id '{run_id}'. List runs with `signoff list`."
            ) from None
        raise
    request = await request_of_run(client, run_id)
    if request is None:
        raise ReconcileRefused(f"'{run_id}' is not an agent run; there is nothing to reconcile.")
    if description.status == WorkflowExecutionStatus.COMPLETED:
        outcome: RunOutcome = await handle.result()
        return request.tenant_id, list(outcome.effects_unknown)
    if description.status == WorkflowExecutionStatus.RUNNING:
        state = await try_state(handle)
        if state is None:
            raise ReconcileRefused(
                f"Run {run_id} is running but no worker answered. Is `signoff worker` running?"
            )
        return request.tenant_id, list(state.effects_unknown)
    ended = description.status.name.lower() if description.status else "unknown"
    raise ReconcileRefused(
        f"Run {run_id} ended without an outcome ({ended}); its "
        "unknown actions cannot be read. Check its refunds in the ledger by run id."
    )


def settle(engine: Engine, tenant_id: str, effects: list[UnknownEffect]) -> list[Settlement]:
    """Each unknown action, looked up in the ledger by its idempotency key."""
    settlements = []
    for effect in effects:
        checked_at = datetime.now(UTC)
        row = refund_by_key(engine, effect.idempotency_key)
        if row is None or row.tenant_id != tenant_id:
            settlements.append(Settlement(effect, happened=False, checked_at=checked_at))
            continue
        settlements.append(
            Settlement(
                effect,
                happened=True,
                checked_at=checked_at,
                refund_id=row.id,
                refunded_at=row.created_at,
                approvers=tuple(row.approver_list),
            )
        )
    return settlements
