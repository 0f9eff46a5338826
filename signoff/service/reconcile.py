"""Settling actions whose outcome is unknown: did the refund happen or not?

A run lists such actions when the refund activity failed after every retry (see
workflows/unknown_effects.py). The ledger is the truth: the refund happened exactly
when a ledger row carries the action's idempotency key. This reads the run's list (its
outcome, or its live state), looks each key up and records the answer
(activities/store/settlements.py); for a tenant that refunds through a payment platform
the key is looked up there (activities/payments/remote_settlement.py). "Did not happen"
is then final, the key can no longer refund, so an attempt still stuck in some worker
cannot make it false later.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from temporalio.client import WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from activities.payments.connector import PaymentError
from activities.payments.registry import PaymentConnectors
from activities.payments.remote_settlement import settle_on_platform
from activities.store.errors import StoreError
from activities.store.settlements import SettledRefund, settle_refund
from signoff.config.settings import Settings
from signoff.payments.registry import PaymentSetupProblem
from signoff.service.handles import Runs, Store, client_of, engine_of
from signoff.service.pending import run_state
from signoff.service.runs import request_of_run
from workflows.agent_run import AgentRun
from workflows.contracts import RunOutcome
from workflows.unknown_effects import UnknownEffect


class ReconcileRefused(Exception):
    """The run's unknown actions cannot be read; the message says why and what to do."""


class ReconcileUnavailable(ReconcileRefused):
    """The payment platform could not be asked; nothing more was settled. Try again."""


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
            f"{effect.description}: DID NOT HAPPEN, no refund carries its key (ledger or "
            f"payment platform); its key "
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


def payment_connectors(settings: Settings) -> PaymentConnectors:
    """The tenants' payment connectors, as the worker builds them."""
    try:
        return PaymentConnectors(settings)
    except PaymentSetupProblem as problem:
        raise ReconcileRefused(str(problem)) from None


async def unknown_effects_of(runs: Runs, run_id: str) -> tuple[str, list[UnknownEffect]]:
    """The run's tenant and the actions its outcome (or live state) lists as unknown."""
    client = client_of(runs)
    handle = client.get_workflow_handle_for(AgentRun.run, run_id)
    try:
        description = await handle.describe()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            raise ReconcileRefused(
                f"No run with id '{run_id}'. List runs with `signoff list`."
            ) from None
        raise
    request = await request_of_run(runs, run_id)
    if request is None:
        raise ReconcileRefused(f"'{run_id}' is not an agent run; there is nothing to reconcile.")
    if description.status == WorkflowExecutionStatus.COMPLETED:
        outcome: RunOutcome = await handle.result()
        return request.tenant_id, list(outcome.effects_unknown)
    if description.status == WorkflowExecutionStatus.RUNNING:
        state = await run_state(runs, run_id)
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
    store: Store,
    run_id: str,
    tenant_id: str,
    effects: list[UnknownEffect],
    payments: PaymentConnectors | None = None,
) -> list[Settlement]:
    """Each unknown action, looked up by its key (in the ledger, or on the tenant's payment
    platform), and the answer recorded. Raises ReconcileRefused when the platform cannot
    be asked: what was settled before stays settled, the rest waits for another run."""
    engine = engine_of(store)
    try:
        connector = (payments or PaymentConnectors.ledger_only()).for_tenant(tenant_id)
    except PaymentError as error:
        raise ReconcileRefused(str(error)) from None
    settled: list[Settlement] = []
    for effect in effects:
        if connector is None or effect.order_id is None:
            answer = settle_refund(
                engine,
                tenant_id=tenant_id,
                run_id=run_id,
                order_id=effect.order_id,
                action_hash=effect.action_hash,
                idempotency_key=effect.idempotency_key,
            )
        else:
            try:
                answer = settle_on_platform(
                    engine,
                    connector,
                    tenant_id=tenant_id,
                    run_id=run_id,
                    order_id=effect.order_id,
                    action_hash=effect.action_hash,
                    idempotency_key=effect.idempotency_key,
                )
            except (PaymentError, StoreError) as error:
                raise ReconcileUnavailable(
                    f"{effect.description}: not settled, {connector.name} could not be asked "
                    f"by key ({error}). Nothing was recorded; run reconcile again once it "
                    "answers."
                ) from None
        settled.append(Settlement(effect, answer))
    return settled
