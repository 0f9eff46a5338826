"""Helpdesk deliveries that started a triage: found again by source, ticket and event.

A delivery is stored with its ticket in one transaction, so a delivery sent again (the
helpdesk retrying, or someone replaying a captured request inside the signature's time
window) finds the first one's ticket and run and starts nothing new. The helpdesk's own
ticket id is kept beside ours, for the reply that goes back to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, Select, select
from sqlalchemy.exc import IntegrityError

from activities.store.connector_schema import IntakeDelivery
from activities.store.database import use_session, write_transaction
from activities.store.errors import StoreError, UnknownTenant
from activities.store.schema import Ticket
from activities.store.tickets import get_order, new_ticket_id, refuse_nul, tenant_exists


@dataclass(frozen=True)
class DeliveryKey:
    tenant_id: str
    source: str
    source_ticket_id: str
    event_id: str


@dataclass(frozen=True)
class StoredDelivery:
    ticket_id: str
    run_id: str
    replayed: bool


@dataclass(frozen=True)
class NewTicket:
    customer_name: str
    text: str
    order_reference: str | None


class DeliveryRace(StoreError):
    """The same delivery was being stored by another request; send it again."""


def find_delivery(engine: Engine, key: DeliveryKey) -> StoredDelivery | None:
    with use_session(engine) as session:
        row = session.scalars(_by_key(key)).one_or_none()
        return None if row is None else StoredDelivery(row.ticket_id, row.run_id, True)


def store_delivery(
    engine: Engine, key: DeliveryKey, ticket: NewTicket, run_id: str, now: datetime
) -> StoredDelivery:
    """The delivery and its new ticket, or the ticket and run stored for it before."""
    refuse_nul({"ticket text": ticket.text, "customer name": ticket.customer_name})
    try:
        with write_transaction(engine) as session:
            row = session.scalars(_by_key(key)).one_or_none()
            if row is not None:
                return StoredDelivery(row.ticket_id, row.run_id, True)
            if not tenant_exists(session, key.tenant_id):
                raise UnknownTenant(key.tenant_id)
            # Linked when it names one of the tenant's orders (never another tenant's:
            # the read takes the tenant); the helpdesk's field may mean something else.
            order_id = ticket.order_reference
            if order_id is not None and get_order(session, key.tenant_id, order_id) is None:
                order_id = None
            ticket_id = new_ticket_id()
            session.add(
                Ticket(
                    tenant_id=key.tenant_id,
                    id=ticket_id,
                    order_id=order_id,
                    customer_name=ticket.customer_name,
                    text=ticket.text,
                    created_at=now,
                )
            )
            session.add(
                IntakeDelivery(
                    tenant_id=key.tenant_id,
                    source=key.source,
                    source_ticket_id=key.source_ticket_id,
                    event_id=key.event_id,
                    ticket_id=ticket_id,
                    run_id=run_id,
                    received_at=now,
                )
            )
            return StoredDelivery(ticket_id, run_id, False)
    except IntegrityError:
        found = find_delivery(engine, key)
        if found is None:  # a ticket id taken meanwhile, not the same delivery
            raise DeliveryRace("Two deliveries collided; send this one again.") from None
        return found


def source_ticket_of(engine: Engine, tenant_id: str, ticket_id: str) -> tuple[str, str] | None:
    """(source, the helpdesk's ticket id) of a ticket that came through the intake."""
    with use_session(engine) as session:
        row = session.scalars(
            select(IntakeDelivery).where(
                IntakeDelivery.tenant_id == tenant_id, IntakeDelivery.ticket_id == ticket_id
            )
        ).one_or_none()
        return None if row is None else (row.source, row.source_ticket_id)


def _by_key(key: DeliveryKey) -> Select[IntakeDelivery]:
    return select(IntakeDelivery).where(
        IntakeDelivery.tenant_id == key.tenant_id,
        IntakeDelivery.source == key.source,
        IntakeDelivery.source_ticket_id == key.source_ticket_id,
        IntakeDelivery.event_id == key.event_id,
    )
