"""The shop's records as a face reads and writes them: tenants, tickets, and the demo
data.

Thin on purpose: the store already answers these questions in one query each. This
module is the boundary the faces stand behind, so that they never reach into the
adapters' layer (see docs/development/index.md): a ticket comes back as a frozen
`TicketRecord`, never as the store's row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import activities.store as store_layer
from activities.store import (
    EmptyTicketText,
    SeedReport,
    StoreError,
    Ticket,
    TicketTextTooLong,
    UnknownOrder,
    UnknownTenant,
)
from signoff.service.handles import engine_of, on_store
from signoff.service.store import Store

__all__ = [
    "EmptyTicketText",
    "SeedReport",
    "StoreError",
    "TicketRecord",
    "TicketTextTooLong",
    "UnknownOrder",
    "UnknownTenant",
    "add_ticket",
    "get_ticket",
    "get_tickets",
    "seed_demo",
    "seed_store",
    "tenant_exists",
]

# The store layer's calls, each taking the face's Store (handles.py).
add_ticket = on_store(store_layer.add_ticket)
seed_demo = on_store(store_layer.seed_demo)
seed_store = on_store(store_layer.seed_store)
tenant_exists = on_store(store_layer.tenant_exists)


@dataclass(frozen=True)
class TicketRecord:
    tenant_id: str
    id: str
    order_id: str | None
    customer_name: str
    text: str
    created_at: datetime


def _record(row: Ticket) -> TicketRecord:
    return TicketRecord(
        row.tenant_id, row.id, row.order_id, row.customer_name, row.text, row.created_at
    )


def get_ticket(store: Store, tenant_id: str, ticket_id: str) -> TicketRecord | None:
    row = store_layer.get_ticket(engine_of(store), tenant_id, ticket_id)
    return _record(row) if row is not None else None


def get_tickets(store: Store, tenant_id: str, ticket_ids: Iterable[str]) -> dict[str, TicketRecord]:
    """The tenant's tickets among `ticket_ids`, by id, in one query."""
    rows = store_layer.get_tickets(engine_of(store), tenant_id, ticket_ids)
    return {ticket_id: _record(row) for ticket_id, row in rows.items()}
