"""Opening the shop's store for a face: the one place a face gets a database engine,
and the one place the store's schema is migrated on purpose (`signoff store migrate`).

The faces (reviewer UI, CLI) never build an engine themselves: they ask for the store
named by `Settings`, so that whatever opening the store means (creating or upgrading the
schema, SQLite's pragmas) happens the same way for both. With SIGNOFF_MIGRATE_AT_START
false (the runtime role of a PostgreSQL store) opening it never migrates: it refuses a
store at another revision, and `migrate_store`, as the owner role, brings it there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from activities.store import StoreError, make_engine
from activities.store.database import writer
from activities.store.schema_revision import HEAD_REVISION
from signoff.config.settings import Settings
from signoff.service.handles import Store, engine_of

__all__ = [
    "MigrationReport",
    "Store",
    "StoreError",
    "StoreUnreachable",
    "close_store",
    "migrate_store",
    "open_store",
]


class StoreUnreachable(StoreError):
    """The store could not be opened or reached: its URL, its server or its file."""


def open_store(settings: Settings) -> Store:
    """The store `settings` name, ready to use; the caller closes it (`close_store`).
    Raises StoreError: a schema this process may not or cannot use, or StoreUnreachable."""
    try:
        engine = make_engine(settings.resolved_database_url, migrate=settings.migrate_at_start)
    except StoreError:
        raise
    except SQLAlchemyError:
        raise StoreUnreachable(
            f"Cannot open the store at {settings.shown_database_url}; check SIGNOFF_DATABASE_URL."
        ) from None
    return Store(engine)


def close_store(store: Store) -> None:
    engine_of(store).dispose()


@dataclass(frozen=True)
class MigrationReport:
    revision: str
    # The runtime role and what it was granted per table; None: no roles to keep apart.
    runtime_role: str | None = None
    grants: dict[str, tuple[str, ...]] = field(default_factory=dict)


class RuntimeRoleOwnsStore(StoreError):
    def __init__(self, role: str) -> None:
        super().__init__(
            f"SIGNOFF_DATABASE_URL and SIGNOFF_MIGRATION_DATABASE_URL both name the role "
            f"'{role}': the application would own the audit and could drop its trigger. "
            "Give SIGNOFF_DATABASE_URL a role of its own (docs/operating/"
            "postgresql.md). The schema was migrated; no privilege was changed."
        )


def migrate_store(settings: Settings) -> MigrationReport:
    """Bring the store to this code's revision as the owner role (the migration URL, or
    the runtime URL when none is set), then, on PostgreSQL with a migration URL, leave
    the runtime role with exactly what it needs (activities/store/runtime_grants.py).
    Raises StoreError, or StoreUnreachable when the owner role cannot do it."""
    try:
        return _migrate(settings)
    except StoreError:
        raise
    except SQLAlchemyError as error:
        raise StoreUnreachable(
            f"Cannot migrate the store as the owner role ({str(error).splitlines()[0]}). "
            "Check SIGNOFF_MIGRATION_DATABASE_URL "
            "(or SIGNOFF_DATABASE_URL when it is unset): the server, the role's password, "
            "and that the role owns the database."
        ) from None


def _migrate(settings: Settings) -> MigrationReport:
    # Here: only `signoff store migrate` grants roles; opening the store needs none of it.
    from activities.store.runtime_grants import RuntimeRoleIsOwner, grant_runtime_role

    owner = settings.migration_database_url
    engine = make_engine(owner.get_secret_value() if owner else settings.resolved_database_url)
    try:
        if owner is None or engine.dialect.name != "postgresql":
            return MigrationReport(HEAD_REVISION)
        role = make_url(settings.resolved_database_url).username
        if not role:
            raise StoreError(
                "SIGNOFF_DATABASE_URL names no user: give the runtime role's name in it "
                "(postgresql+psycopg://ROLE:PASSWORD@HOST/DB)."
            )
        try:
            with writer(engine).begin() as connection:
                grants = grant_runtime_role(connection, role)
        except RuntimeRoleIsOwner:
            raise RuntimeRoleOwnsStore(role) from None
        return MigrationReport(HEAD_REVISION, role, grants)
    finally:
        engine.dispose()
