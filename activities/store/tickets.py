"""Creating tickets, and reading a ticket or an order whole (the intake, the CLI, tests).

Every read takes the tenant: there is no way to fetch a ticket or an order by id alone.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import UTC, datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from activities.store.database import use_session, write_transaction
from activities.store.errors import (
    EmptyTicketText,
    StoreError,
    TicketTextTooLong,
    UnknownOrder,
    UnknownTenant,
)
from activities.store.schema import NAME_LENGTH, Order, Tenant, Ticket
from workflows.outside_text import nul_problem

MAX_TICKET_TEXT_CHARS = 20_000
# 16^6 ids per tenant: a collision is rare, several in a row means something is wrong.
TICKET_ID_ATTEMPTS = 5


def new_ticket_id() -> str:
    return "T-" + uuid.uuid4().hex[:6].upper()


def add_ticket(
    engine: Engine,
    tenant_id: str,
    order_id: str | None,
    text: str,
    customer_name: str = "unknown",
) -> str:
    """Store a new ticket and return its id. Raises a StoreError that says what to fix."""
    refuse_nul({"ticket text": text, "customer name": customer_name})
    if not text.strip():
        raise EmptyTicketText()
    if len(text) > MAX_TICKET_TEXT_CHARS:
        raise TicketTextTooLong(len(text), MAX_TICKET_TEXT_CHARS)
    if len(customer_name) > NAME_LENGTH:
        raise StoreError(
            f"The customer name has {len(customer_name)} characters; "
            f"the limit is {NAME_LENGTH}. Shorten it."
        )
    with write_transaction(engine) as session:
        if not tenant_exists(session, tenant_id):
            raise UnknownTenant(tenant_id)
        if order_id is not None and get_order(session, tenant_id, order_id) is None:
            raise UnknownOrder(tenant_id, order_id)
        ticket_id = _free_ticket_id(session, tenant_id)
        session.add(
            Ticket(
                tenant_id=tenant_id,
                id=ticket_id,
                order_id=order_id,
                customer_name=customer_name,
                text=text,
                created_at=datetime.now(UTC),
            )
        )
    return ticket_id


def refuse_nul(fields: dict[str, str]) -> None:
    """A StoreError naming the first field that holds a NUL byte: PostgreSQL refuses one
    in text and SQLite keeps it, so every backend refuses it here, in the same words."""
    for what, value in fields.items():
        problem = nul_problem(what, value)
        if problem is not None:
            raise StoreError(problem)


def _free_ticket_id(session: Session, tenant_id: str) -> str:
    for _ in range(TICKET_ID_ATTEMPTS):
        candidate = new_ticket_id()
        if get_ticket(session, tenant_id, candidate) is None:
            return candidate
    raise StoreError(
        f"Could not find a free ticket id after {TICKET_ID_ATTEMPTS} attempts. Try again."
    )


def tenant_exists(source: Session | Engine, tenant_id: str) -> bool:
    with use_session(source) as session:
        return session.get(Tenant, tenant_id) is not None


def get_ticket(source: Session | Engine, tenant_id: str, ticket_id: str) -> Ticket | None:
    with use_session(source) as session:
        return session.get(Ticket, (tenant_id, ticket_id))


def get_tickets(
    source: Session | Engine, tenant_id: str, ticket_ids: Iterable[str]
) -> dict[str, Ticket]:
    """The tenant's tickets among `ticket_ids`, by id, in one query; missing ones absent."""
    wanted = set(ticket_ids)
    if not wanted:
        return {}
    with use_session(source) as session:
        found = session.scalars(
            select(Ticket).where(Ticket.tenant_id == tenant_id, Ticket.id.in_(wanted))
        )
        return {ticket.id: ticket for ticket in found}


def get_order(source: Session | Engine, tenant_id: str, order_id: str) -> Order | None:
    with use_session(source) as session:
        return session.get(Order, (tenant_id, order_id))
