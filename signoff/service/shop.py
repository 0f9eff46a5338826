"""The shop's records as a face reads and writes them: tenants, tickets, orders' refunds,
and the demo data.

Thin on purpose: the store already answers these questions in one query each. This
module is the boundary the faces stand behind, so that they never reach into the
adapters' layer (see docs/development/index.md).
"""

from __future__ import annotations

from activities.store import (
    EmptyTicketText,
    Refund,
    SeedReport,
    StoreError,
    Ticket,
    TicketTextTooLong,
    UnknownOrder,
    UnknownTenant,
    add_ticket,
    get_ticket,
    get_tickets,
    list_refunds,
    seed_demo,
    seed_store,
    tenant_exists,
)

__all__ = [
    "EmptyTicketText",
    "Refund",
    "SeedReport",
    "StoreError",
    "Ticket",
    "TicketTextTooLong",
    "UnknownOrder",
    "UnknownTenant",
    "add_ticket",
    "get_ticket",
    "get_tickets",
    "list_refunds",
    "seed_demo",
    "seed_store",
    "tenant_exists",
]
