"""Pending refunds: the part of an order's exposure that still waits for a decision.

Design note. Four eyes is judged on refunded + pending + the call (see
`workflows/gate_store.py`), so "pending" must be one answer for every run at once. When
an action starts waiting, `hold_pending_refund` writes its row and sums the other live
rows of the order in the same write transaction, after taking the same per-order lock
as a refund (`BEGIN IMMEDIATE` on SQLite, `SELECT ... FOR UPDATE` on the order row on
PostgreSQL): of two holds at once, the second waits for the first to commit and counts
it, so two runs cannot both judge themselves under the threshold. A row leaves when its
run releases it (decided, denied, replaced by the action that supersedes it) or in the
refund's own transaction (`release_in`), so that the amount never counts neither as
pending nor as refunded. A run that dies leaves its row behind: rows whose
`expires_at` has passed count for nothing (the approval they stood for can no longer be
given) and are deleted by the next hold on the order. Only the run that wrote a row can
release it.

The hold and the release also write and delete the action's row of the inbox's read
model (`waiting_actions.py`). The refund's transaction leaves that row alone: the
approval that authorized the refund already deleted it (the audit's writer).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session

from activities.store.database import connection_of, table_of, write_connection
from activities.store.errors import UnknownOrder
from activities.store.schema import Order, PendingRefund
from activities.store.waiting_actions import put_waiting, remove_waiting
from workflows.actions import PendingRefundHeld, PendingRefundHold, PendingRefundRelease
from workflows.approval_policy import with_exposure

ORDERS = table_of(Order)
PENDING = table_of(PendingRefund)
# The statements of a run's hold and release, built once: every waiting refund holds,
# and every refund releases (building and compiling them anew cost more than running).
RELEASE = delete(PENDING).where(
    PENDING.c.action_hash == bindparam("action_hash"), PENDING.c.run_id == bindparam("run_id")
)
LOCK_ORDER = (
    select(ORDERS.c.id)
    .where(ORDERS.c.tenant_id == bindparam("tenant_id"), ORDERS.c.id == bindparam("order_id"))
    .with_for_update()
)
_THIS_ORDER = (PENDING.c.tenant_id == bindparam("tenant_id")) & (
    PENDING.c.order_id == bindparam("order_id")
)
DROP_EXPIRED = delete(PENDING).where(_THIS_ORDER, PENDING.c.expires_at <= bindparam("now"))
HELD = select(PENDING.c.action_hash).where(PENDING.c.action_hash == bindparam("action_hash"))
HOLD_AGAIN = (
    update(PENDING)
    .where(PENDING.c.action_hash == bindparam("held_hash"))
    .values(expires_at=bindparam("expires_at"))
)
NEW_HOLD = insert(PENDING)


def hold_pending_refund(
    engine: Engine, hold: PendingRefundHold, now: datetime | None = None
) -> PendingRefundHeld:
    """Count the action in its order's exposure; return what the other live rows add up
    to. Idempotent per action hash (a retried activity). Raises UnknownOrder."""
    now = now or datetime.now(UTC)
    # Core statements in one write transaction: every waiting refund holds here once,
    # and the ORM's loading and flush were most of the activity (docs/benchmarks/runs.md).
    order = {"tenant_id": hold.tenant_id, "order_id": hold.order_id}
    with write_connection(engine) as connection:
        if connection.execute(LOCK_ORDER, order).one_or_none() is None:
            raise UnknownOrder(hold.tenant_id, hold.order_id)
        if hold.supersedes is not None:
            release_in(connection, hold.run_id, hold.supersedes)
            remove_waiting(connection, hold.run_id, hold.supersedes)
        connection.execute(DROP_EXPIRED, {**order, "now": now})
        this_action = {"action_hash": hold.action_hash}
        if connection.execute(HELD, this_action).first():
            # Held again: an escalation waits until its new expiry.
            again = {"held_hash": hold.action_hash, "expires_at": hold.expires_at}
            connection.execute(HOLD_AGAIN, again)
        else:
            connection.execute(
                NEW_HOLD,
                {
                    **order,
                    **this_action,
                    "run_id": hold.run_id,
                    "amount_minor": hold.amount_minor,
                    "expires_at": hold.expires_at,
                    "created_at": now,
                },
            )
        others = pending_minor(
            connection, hold.tenant_id, hold.order_id, now, excluding=hold.action_hash
        )
        if hold.action is not None:  # the inbox's row, judged as the workflow will judge it
            judged = with_exposure(hold.action, hold.amount_minor, others)
            put_waiting(connection, hold.tenant_id, hold.run_id, hold.ticket_id or "", judged, now)
    return PendingRefundHeld(pending_minor=others)


def release_pending_refund(engine: Engine, release: PendingRefundRelease) -> None:
    """Take the action out of its order's exposure; releasing twice is harmless."""
    with write_connection(engine) as connection:
        release_in(connection, release.run_id, release.action_hash)
        remove_waiting(connection, release.run_id, release.action_hash)


def release_in(transaction: Session | Connection, run_id: str, action_hash: str) -> None:
    connection_of(transaction).execute(RELEASE, {"run_id": run_id, "action_hash": action_hash})


def pending_minor(
    source: Session | Connection | Engine,
    tenant_id: str,
    order_id: str,
    now: datetime,
    excluding: str | None = None,
) -> int:
    """What the live (unexpired) pending refunds of an order add up to, in minor units."""
    query = select(func.coalesce(func.sum(PENDING.c.amount_minor), 0)).where(
        PENDING.c.tenant_id == tenant_id,
        PENDING.c.order_id == order_id,
        PENDING.c.expires_at > now,
    )
    if excluding is not None:
        query = query.where(PENDING.c.action_hash != excluding)
    if isinstance(source, Engine):
        with source.connect() as connection:
            return int(connection.scalar(query) or 0)
    return int(connection_of(source).scalar(query) or 0)
