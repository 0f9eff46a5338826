"""Fresh refund cases for the benchmarks and the tests: one order and one ticket per run.

Runs on one order would share its exposure: since four eyes counts every refund waiting
on an order (`pending_refunds`), only as many runs as the order's paid amount
allows can wait at once, and the rest are denied. A benchmark of N waiting refunds needs
N orders.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from activities.store import make_engine, write_transaction
from activities.store.schema import Order, Ticket

PAID_MINOR = 6000  # 60.00 EUR: under the demo's four-eyes threshold, refunded in full
TEXT = "Hello, my parcel arrived damaged: the lamp is broken. Can you help? Kim"


def add_refund_cases(
    database_url: str, tenant_id: str, count: int, paid_minor: int = PAID_MINOR
) -> list[str]:
    """`count` new delivered orders of `paid_minor` (in cents) each, each with a ticket
    asking for its refund; their ticket ids, in creation order."""
    engine = make_engine(database_url)
    batch = uuid.uuid4().hex[:6].upper()
    ticket_ids = [f"T-B{batch}-{number}" for number in range(count)]
    try:
        with write_transaction(engine) as session:
            for number, ticket_id in enumerate(ticket_ids):
                order_id = f"B{batch}-{number}"
                session.add(
                    Order(
                        tenant_id=tenant_id,
                        id=order_id,
                        amount_paid_minor=paid_minor,
                        currency="EUR",
                        status="delivered",
                        tracking=None,
                        customer_name="Kim Bench",
                    )
                )
                session.flush()
                session.add(
                    Ticket(
                        tenant_id=tenant_id,
                        id=ticket_id,
                        order_id=order_id,
                        customer_name="Kim Bench",
                        text=TEXT,
                        created_at=datetime.now(UTC),
                    )
                )
    finally:
        engine.dispose()
    return ticket_ids
