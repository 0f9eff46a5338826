"""What the tests read of the helpdesk's outbox (`customer_replies`), which the product
only writes (activities/store/customer_replies.py)."""

from __future__ import annotations

from sqlalchemy import Engine, select

from activities.store.connector_schema import CustomerReply
from activities.store.database import use_session


def replies_of(engine: Engine, tenant_id: str, ticket_id: str) -> list[CustomerReply]:
    """The replies sent on a ticket, oldest first."""
    with use_session(engine) as session:
        return list(
            session.scalars(
                select(CustomerReply)
                .where(CustomerReply.tenant_id == tenant_id, CustomerReply.ticket_id == ticket_id)
                .order_by(CustomerReply.sent_at, CustomerReply.id)
            )
        )
