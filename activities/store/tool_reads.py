"""The demo shop tools' reads (`read_ticket`, `get_order`): one statement each, built once.

Every refund run calls both tools: loading a `Ticket` and then an `Order` through the
ORM, each query built anew, cost more than the reads. Each read takes the tenant, as
every read of the shop does (`tickets.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, bindparam, select

from activities.store.database import table_of
from activities.store.schema import Order, Ticket

TICKETS = table_of(Ticket)
ORDERS = table_of(Order)
_THIS_TICKET = (TICKETS.c.tenant_id == bindparam("tenant_id")) & (
    TICKETS.c.id == bindparam("ticket_id")
)
TICKET_TEXT = select(TICKETS.c.customer_name, TICKETS.c.text).where(_THIS_TICKET)
# The ticket, and its order if it has one: a ticket is one row (its key is tenant and id).
TICKET_ORDER = (
    select(
        TICKETS.c.id.label("ticket_id"),
        ORDERS.c.id,
        ORDERS.c.status,
        ORDERS.c.amount_paid_minor,
        ORDERS.c.currency,
        ORDERS.c.tracking,
    )
    .select_from(
        TICKETS.outerjoin(
            ORDERS,
            (ORDERS.c.tenant_id == TICKETS.c.tenant_id) & (ORDERS.c.id == TICKETS.c.order_id),
        )
    )
    .where(_THIS_TICKET)
)


@dataclass(frozen=True)
class TicketText:
    customer_name: str
    text: str


@dataclass(frozen=True)
class OrderView:
    """What the order tool tells the model of an order."""

    id: str
    status: str
    amount_paid_minor: int
    currency: str
    tracking: str | None


def ticket_text(connection: Connection, tenant_id: str, ticket_id: str) -> TicketText | None:
    """The ticket's customer name and text; None when the tenant has no such ticket."""
    row = connection.execute(TICKET_TEXT, {"tenant_id": tenant_id, "ticket_id": ticket_id}).first()
    return None if row is None else TicketText(row.customer_name, row.text)


def ticket_order(
    connection: Connection, tenant_id: str, ticket_id: str
) -> tuple[bool, OrderView | None]:
    """Whether the tenant has the ticket, and its own order (None: linked to none)."""
    row = connection.execute(TICKET_ORDER, {"tenant_id": tenant_id, "ticket_id": ticket_id}).first()
    if row is None:
        return False, None
    if row.id is None:
        return True, None
    return True, OrderView(row.id, row.status, row.amount_paid_minor, row.currency, row.tracking)
