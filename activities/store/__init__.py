"""The shop's records: tenants, orders, tickets (SQLAlchemy, SQLite or PostgreSQL)."""

from __future__ import annotations

from activities.store.database import make_engine, session_factory, use_session
from activities.store.errors import (
    EmptyTicketText,
    StoreError,
    TicketTextTooLong,
    UnknownOrder,
    UnknownTenant,
)
from activities.store.schema import Order, Tenant, Ticket
from activities.store.seed import SeedReport, seed_demo
from activities.store.tickets import (
    add_ticket,
    get_order,
    get_order_for_ticket,
    get_ticket,
    tenant_exists,
)

__all__ = [
    "EmptyTicketText",
    "Order",
    "SeedReport",
    "StoreError",
    "Tenant",
    "Ticket",
    "TicketTextTooLong",
    "UnknownOrder",
    "UnknownTenant",
    "add_ticket",
    "get_order",
    "get_order_for_ticket",
    "get_ticket",
    "make_engine",
    "seed_demo",
    "session_factory",
    "tenant_exists",
    "use_session",
]
