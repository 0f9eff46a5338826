"""The inbox's read model: one row per (run, action) while it waits for a decision.

Design note. Temporal's visibility cannot list waiting runs in the order a
reviewer needs (soonest expiry first): the first page used to need the whole listing.
So the store keeps the waiting actions itself, written by the activities the workflow
already calls, in transactions it already runs, so that no event is added to a run's
history:

- the exposure hold (`pending_refunds.hold_pending_refund`) writes the row, judged on
  the same exposure sum as the workflow judges it (`approval_policy.with_exposure`);
- the audit's writer (`decisions.append_decision`) adds a first approval of two to the
  row, and deletes the row on the event that ends the wait (approved, rejected,
  expired, voided, cancelled, denied);
- the release and a superseding hold delete it too (`pending_refunds.py`), and so does
  the effect that spends a standing rule's use, in its own transaction
  (`rule_grants.py`): an action a rule approved never lingers as waiting.

What no activity sees (a run terminated, or one started before the read model) is
mended from visibility when a worker starts (`waiting_repair.py`). Every write here is
idempotent: activities retry.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from activities.store.action_money import action_money
from activities.store.database import connection_of, table_of, write_transaction
from activities.store.schema import WaitingAction
from workflows.actions import ActionHold, DecisionEvent, PendingAction

WAITING = table_of(WaitingAction)
# Built once: every decided action leaves the inbox through it.
UNWAIT = delete(WAITING).where(
    WAITING.c.run_id == bindparam("run_id"), WAITING.c.action_hash == bindparam("action_hash")
)
# The audit's kind for an approval that still waits for another (decisions.py).
FIRST_APPROVAL = "first_approval"
# Audit kinds after which the action no longer waits.
# `edited`: the edited action (its own row, from its hold) waits in its place.
# `rule_approved`: a standing rule approved it; the effect that spends the rule's use
# takes the row away too (rule_grants.py), whichever of the two the store sees first.
# Should the effect refuse the grant, the run raises the action again, as a new one
# with a hold (and a row) of its own.
WAIT_ENDED_KINDS = (
    "approved",
    "rule_approved",
    "rejected",
    "responded",
    "expired",
    "voided",
    "cancelled",
    "denied",
    "edited",
)


def waiting_values(
    tenant_id: str, run_id: str, ticket_id: str, action: PendingAction, now: datetime
) -> dict[str, Any]:
    """The columns of the action's row."""
    amount_minor, currency = action_money(action)
    exposure = action.exposure
    return {
        "run_id": run_id,
        "action_hash": action.action_hash,
        "tenant_id": tenant_id,
        "ticket_id": ticket_id,
        # The exposure's order: no target is read by its name (an empty column for none).
        "order_id": "" if exposure is None or exposure.order_id is None else exposure.order_id,
        "amount_minor": amount_minor,
        "currency": currency,
        "created_at": now,
        **action_values(action),
    }


def new_row(
    tenant_id: str, run_id: str, ticket_id: str, action: PendingAction, now: datetime
) -> WaitingAction:
    return WaitingAction(**waiting_values(tenant_id, run_id, ticket_id, action, now))


def put_waiting(
    transaction: Session | Connection,
    tenant_id: str,
    run_id: str,
    ticket_id: str,
    action: PendingAction,
    now: datetime,
) -> None:
    """The action's row. A retried hold judges again and overwrites it: the workflow
    goes on with the judgement of the attempt that answered, and no decision can have
    reached the row before the hold answered. Core statements: every hold writes here."""
    connection = connection_of(transaction)
    key = (WAITING.c.run_id == run_id) & (WAITING.c.action_hash == action.action_hash)
    if connection.execute(select(WAITING.c.run_id).where(key)).first() is None:
        connection.execute(
            insert(WAITING).values(waiting_values(tenant_id, run_id, ticket_id, action, now))
        )
    else:
        connection.execute(update(WAITING).where(key).values(action_values(action)))


def hold_waiting(engine: Engine, hold: ActionHold, now: datetime) -> None:
    """The row of an action that counts in no exposure (any tool but the refund), and
    the row of the action it supersedes removed, in one transaction. Idempotent."""
    with write_transaction(engine) as session:
        if hold.action.supersedes is not None:
            remove_waiting(session, hold.run_id, hold.action.supersedes)
        put_waiting(session, hold.tenant_id, hold.run_id, hold.ticket_id, hold.action, now)


def remove_waiting(transaction: Session | Connection, run_id: str, action_hash: str) -> None:
    connection_of(transaction).execute(UNWAIT, {"run_id": run_id, "action_hash": action_hash})


def follow_decision(session: Session, event: DecisionEvent, kind: str) -> None:
    """Bring the row up to date with an audit event of kind `kind`, in its transaction."""
    record = event.record
    if kind in WAIT_ENDED_KINDS:
        remove_waiting(session, event.run_id, record.action_hash)
        return
    if kind != FIRST_APPROVAL:
        return  # a refused attempt decides nothing
    row = session.get(WaitingAction, (event.run_id, record.action_hash))
    if row is None:
        return  # a run from before the read model: the reconciliation adds it
    action = PendingAction.model_validate_json(row.action)
    if record in action.approvals:
        return  # a retried activity
    with_it = action.model_copy(update={"approvals": [*action.approvals, record]})
    set_action(row, with_it)


def set_action(row: WaitingAction, action: PendingAction) -> None:
    for name, value in action_values(action).items():
        setattr(row, name, value)


def action_values(action: PendingAction) -> dict[str, Any]:
    """The columns that follow the action as it changes."""
    return {
        "action": action.model_dump_json(),
        # An escalated action waits longer, for another role (workflows/escalation.py).
        "expires_at": action.expires_at,
        "approvals_given": len(action.approvals),
        "mode": action.mode,
        "approvals_required": action.required_approvals,
    }
