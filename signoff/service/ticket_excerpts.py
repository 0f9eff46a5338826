"""The tickets beside a page of pending requests: what the inbox's cards and the batch
page show of each (the customer's own words and name), read for that page alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from activities.store import get_tickets
from signoff.service.handles import Store, engine_of
from signoff.service.pending import PendingItem


@dataclass(frozen=True)
class TicketWords:
    text: str
    customer_name: str


def ticket_words(store: Store, items: Sequence[PendingItem]) -> dict[tuple[str, str], TicketWords]:
    """(tenant, ticket id) -> the ticket's words: one query per tenant, however many
    requests the page holds (a page is one tenant's: one query), never one per ticket.
    A ticket is looked up in its request's own tenant only."""
    engine = engine_of(store)
    found: dict[tuple[str, str], TicketWords] = {}
    for tenant_id in {item.tenant_id for item in items}:
        wanted = {item.ticket_id for item in items if item.tenant_id == tenant_id}
        for ticket_id, ticket in get_tickets(engine, tenant_id, wanted).items():
            found[(tenant_id, ticket_id)] = TicketWords(ticket.text, ticket.customer_name)
    return found
