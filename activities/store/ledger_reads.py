"""The ledger's reads on a run's path: a tenant's review threshold, a ticket's order, what
an order has had refunded, whether a key was used or settled.

Design note. Each run reads the action's state, and its refund reads it all again in
its own transaction (`refunds.py`): these reads sit on the path from a reviewer's
decision to the money moving. They are Core statements built once, with bound
parameters, returning small frozen values: building each query anew, and loading
whole `Tenant` and `Order` objects through the ORM, cost more than the reads
themselves. What the rows mean, and the lock that serializes refunds, stay in
`refunds.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, bindparam, func, select

from activities.store.database import table_of
from activities.store.errors import UnknownTenant
from activities.store.schema import Order, Refund, RefundSettlement, Tenant, Ticket

TENANTS = table_of(Tenant)
ORDERS = table_of(Order)
TICKETS = table_of(Ticket)
REFUNDS = table_of(Refund)
SETTLEMENTS = table_of(RefundSettlement)

TENANT_THRESHOLD = select(TENANTS.c.refund_review_threshold_minor).where(
    TENANTS.c.id == bindparam("tenant_id")
)
# A ticket is one row (its key is tenant and id), so the join gives at most one order.
ORDER_OF_TICKET = (
    select(ORDERS.c.id, ORDERS.c.currency, ORDERS.c.amount_paid_minor, ORDERS.c.status)
    .join(
        TICKETS,
        (TICKETS.c.tenant_id == ORDERS.c.tenant_id) & (TICKETS.c.order_id == ORDERS.c.id),
    )
    .where(TICKETS.c.tenant_id == bindparam("tenant_id"), TICKETS.c.id == bindparam("ticket_id"))
)
# FOR UPDATE of the order row is what serializes refunds on PostgreSQL; SQLite renders
# nothing for it and is already serialized by BEGIN IMMEDIATE. The ticket stays unlocked.
LOCKED_ORDER_OF_TICKET = ORDER_OF_TICKET.with_for_update(of=ORDERS)
REFUNDED = select(func.coalesce(func.sum(REFUNDS.c.amount_minor), 0)).where(
    REFUNDS.c.tenant_id == bindparam("tenant_id"), REFUNDS.c.order_id == bindparam("order_id")
)
KEY_USED = select(REFUNDS.c.id).where(REFUNDS.c.idempotency_key == bindparam("key"))
KEY_SETTLED = select(SETTLEMENTS.c.idempotency_key).where(
    SETTLEMENTS.c.idempotency_key == bindparam("key")
)


@dataclass(frozen=True)
class OrderFacts:
    """What a refund is judged on of an order."""

    id: str
    currency: str
    amount_paid_minor: int
    status: str


def review_threshold(connection: Connection, tenant_id: str) -> int:
    """The tenant's own review threshold (minor units). Raises UnknownTenant."""
    threshold = connection.execute(TENANT_THRESHOLD, {"tenant_id": tenant_id}).one_or_none()
    if threshold is None:
        raise UnknownTenant(tenant_id)
    return int(threshold[0])


def order_of_ticket(
    connection: Connection, tenant_id: str, ticket_id: str, *, locked: bool = False
) -> OrderFacts | None:
    """The ticket's own order; None when the ticket is missing or linked to no order.
    `locked`: the order row is locked for the rest of the transaction (a refund's)."""
    statement = LOCKED_ORDER_OF_TICKET if locked else ORDER_OF_TICKET
    row = connection.execute(statement, {"tenant_id": tenant_id, "ticket_id": ticket_id}).first()
    if row is None:
        return None
    return OrderFacts(row.id, row.currency, row.amount_paid_minor, row.status)


def refunded_minor(connection: Connection, tenant_id: str, order_id: str) -> int:
    """What the ledger holds refunded on the order, in minor units."""
    total = connection.scalar(REFUNDED, {"tenant_id": tenant_id, "order_id": order_id})
    return int(total or 0)


def key_used(connection: Connection, idempotency_key: str) -> bool:
    """Whether a ledger row holds this key."""
    return connection.execute(KEY_USED, {"key": idempotency_key}).first() is not None


def key_settled(connection: Connection, idempotency_key: str) -> bool:
    """Whether `signoff reconcile` settled this key as not refunded (settlements.py)."""
    return connection.execute(KEY_SETTLED, {"key": idempotency_key}).first() is not None
