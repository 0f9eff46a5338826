"""Settling actions whose outcome is unknown: did the refund happen or not?

A run lists such actions when the refund activity failed after every retry (see
workflows/unknown_effects.py). The ledger is the truth: the refund happened exactly
when a ledger row carries the action's idempotency key. This reads the run's list (its
outcome, or its live state), looks each key up and records the answer
(activities/store/settlements.py): "did not happen" is then final, the key can no
longer refund, so an attempt still stuck in some worker cannot make it false later.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from activities.store.settlements import SettledRefund, settle_refund
from signoff.service.pending import try_state
from signoff.service.runs import request_of_run
from workflows.agent_run import AgentRun
from workflows.contracts import RunOutcome
from workflows.unknown_effects import UnknownEffect


class ReconcileRefused(Exception):
    """The run's unknown actions cannot be read; the message says why and what to do."""


@dataclass(frozen=True)
class Settlement:
    effect: UnknownEffect
    settled: SettledRefund

    @property
    def happened(self) -> bool:
        return self.settled.happened

    def line(self) -> str:
        effect, settled = self.effect, self.settled
        since = f"settled {settled.settled_at:%Y-%m-%d %H:%M:%S} UTC"
        if settled.happened:
            when = f" at {settled.refunded_at:%Y-%m-%d %H:%M:%S} UTC" if settled.refunded_at else ""
            return (
                f"{effect.description}: HAPPENED, refund {settled.refund_id}{when} "
                f"(approved by {', '.join(settled.approvers) or 'nobody recorded'}; {since})"
            )
        return (
            f"{effect.description}: DID NOT HAPPEN, no ledger row carries its key; its key "
            f"can no longer refund ({since})"
        )

    def as_json(self) -> dict[str, Any]:
        settled = self.settled
        return {
            "action_hash": self.effect.action_hash,
            "idempotency_key": self.effect.idempotency_key,
            "order_id": self.effect.order_id,
            "amount": self.effect.amount,
            "currency": self.effect.currency,
            "happened": settled.happened,
            "refund_id": settled.refund_id,
            "refunded_at": settled.refunded_at.isoformat() if settled.refunded_at else None,
            "approvers": list(settled.approvers),
            "settled_at": settled.settled_at.isoformat(),
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


def settle(
    engine: Engine, run_id: str, tenant_id: str, effects: list[UnknownEffect]
) -> list[Settlement]:
    """Each unknown action, looked up in the ledger by its key, and the answer recorded."""
    return [
        Settlement(
            effect,
            settle_refund(
                engine,
                tenant_id=tenant_id,
                run_id=run_id,
                order_id=effect.order_id,
                action_hash=effect.action_hash,
                idempotency_key=effect.idempotency_key,
            ),
        )
        for effect in effects
    ]
