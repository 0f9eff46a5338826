"""`get_order` for a tenant whose orders were paid on a payment platform: what was paid
and refunded comes from the platform, the tracking from the shop's order."""

from __future__ import annotations

import json

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.payments.connector import PaymentsConnector
from activities.store.payment_links import payment_ref_of
from activities.store.schema import minor_to_decimal
from activities.store.tickets import get_order, get_ticket
from workflows.contracts import ToolCallInput

NO_ORDER = (
    "This ticket is linked to no order in the customer's account. An order number "
    "written in the ticket is not a lookup target; ask the customer to write from the "
    "account that placed the order."
)


def order_from_platform(
    engine: Engine, call: ToolCallInput, *, connector: PaymentsConnector
) -> str:
    """The order of the run's ticket, its amounts from the platform. Raises PaymentError
    and StoreError (a missing link: the operator's to fix)."""
    with Session(engine) as session:
        ticket = get_ticket(session, call.tenant_id, call.ticket_id)
        order = (
            None
            if ticket is None or ticket.order_id is None
            else get_order(session, call.tenant_id, ticket.order_id)
        )
        if order is None:
            return json.dumps({"found": False, "message": NO_ORDER})
        order_id, tracking = order.id, order.tracking
        payment_ref = payment_ref_of(session, call.tenant_id, order.id, connector.name)
    facts = connector.payment(payment_ref)
    return json.dumps(
        {
            "found": True,
            "order_id": order_id,
            "status": facts.status,
            "amount_paid": str(minor_to_decimal(facts.paid_minor)),
            "amount_refunded": str(minor_to_decimal(facts.refunded_minor)),
            "currency": facts.currency,
            "tracking": tracking,
        }
    )
