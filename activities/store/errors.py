"""Domain errors of the store. Each message says what was wrong and what to do.

The CLI turns a `StoreError` into a clean message and an exit code; nothing here should
ever need a stack trace to be understood.
"""

from __future__ import annotations


class StoreError(Exception):
    """A store request that cannot succeed as given."""


class UnknownTenant(StoreError):
    def __init__(self, tenant_id: str) -> None:
        self.tenant_id = tenant_id
        super().__init__(
            f"Tenant '{tenant_id}' does not exist. Run `signoff seed` or check --tenant."
        )


class UnknownOrder(StoreError):
    def __init__(self, tenant_id: str, order_id: str) -> None:
        self.tenant_id = tenant_id
        self.order_id = order_id
        # Same message whether the order is missing or belongs to another tenant:
        # the error must not reveal other tenants' orders.
        super().__init__(
            f"Order '{order_id}' does not exist for tenant '{tenant_id}'. "
            "Check --order, or leave it out to create a ticket linked to no order."
        )


class EmptyTicketText(StoreError):
    def __init__(self) -> None:
        super().__init__("The ticket text is empty. Write what the customer asks.")


class TicketTextTooLong(StoreError):
    def __init__(self, length: int, limit: int) -> None:
        self.length = length
        self.limit = limit
        super().__init__(
            f"The ticket text has {length} characters; the limit is {limit}. Shorten it."
        )


class StoreNotMigrated(StoreError):
    """The store is not at this code's schema revision, and this process may not migrate."""

    def __init__(self, head: str) -> None:
        super().__init__(
            f"The store is not at schema revision {head}, which this signoff needs, and "
            "this process does not migrate it (SIGNOFF_MIGRATE_AT_START=false: its role "
            "may not change the schema). Run `signoff store migrate` with "
            "SIGNOFF_MIGRATION_DATABASE_URL set to the owner role's URL, then start again."
        )
