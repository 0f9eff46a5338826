"""The tickets' texts beside a page of pending requests, for the inbox's excerpts."""

from __future__ import annotations

from activities.store import get_tickets
from signoff.service.handles import Store, engine_of
from signoff.service.pending import PendingItem


def ticket_texts(store: Store, items: list[PendingItem]) -> dict[tuple[str, str], str]:
    """(tenant, ticket id) -> text: one query per tenant, not one per ticket."""
    engine = engine_of(store)
    texts: dict[tuple[str, str], str] = {}
    for tenant_id in {item.tenant_id for item in items}:
        wanted = {item.ticket_id for item in items if item.tenant_id == tenant_id}
        for ticket_id, ticket in get_tickets(engine, tenant_id, wanted).items():
            texts[(tenant_id, ticket_id)] = ticket.text
    return texts
