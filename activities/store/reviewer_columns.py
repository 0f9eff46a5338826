"""Adds the later reviewer columns (active, name_key, api_token_hash) to a store made before them.

Design note. Before Alembic, `make_engine` created missing tables but never changed an
existing one, so a store from before `active`, `name_key` and `api_token_hash` would
fail on its first reviewer read. This adds the missing columns in place, fills each
reviewer's name key, and builds the same unique indexes a fresh store gets. It runs
when `schema_migrations.py` adopts a store made before migrations, inside its writing
transaction (`IF NOT EXISTS` on PostgreSQL all the same), and does nothing once the
columns are there. Later schema changes are Alembic revisions, not code like this.
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.exc import IntegrityError

from activities.store.errors import StoreError
from activities.store.reviewer_names import reviewer_name_key

TABLE = "reviewers"


class NamesClash(StoreError):
    def __init__(self) -> None:
        super().__init__(
            "Two reviewers in this store have names that differ only in case or Unicode "
            "form; names must be unique ignoring both. Delete one of them from the "
            "`reviewers` table, then start again."
        )


def upgrade_reviewer_columns(connection: Connection) -> None:
    """The same, inside the caller's writing transaction; nothing without the table."""
    if not inspect(connection).has_table(TABLE) or not _missing(connection):
        return
    try:
        _upgrade(connection)
    except IntegrityError:  # the unique index met two spellings of one name
        raise NamesClash() from None


def _missing(source: Engine | Connection) -> set[str]:
    present = {column["name"] for column in inspect(source).get_columns(TABLE)}
    return {"active", "name_key", "api_token_hash"} - present


def _upgrade(connection: Connection) -> None:
    missing = _missing(connection)  # again, under the lock: another process may have done it
    if_absent = "IF NOT EXISTS " if connection.dialect.name == "postgresql" else ""
    add = f"ALTER TABLE {TABLE} ADD COLUMN {if_absent}"
    if "active" in missing:
        connection.execute(text(f"{add}active BOOLEAN NOT NULL DEFAULT TRUE"))
    if "api_token_hash" in missing:
        connection.execute(text(f"{add}api_token_hash VARCHAR(64)"))
    if "name_key" in missing:
        connection.execute(text(f"{add}name_key VARCHAR(255)"))
        ids = connection.execute(text(f"SELECT id FROM {TABLE}")).scalars().all()
        for reviewer_id in ids:
            connection.execute(
                text(f"UPDATE {TABLE} SET name_key = :key WHERE id = :id"),
                {"key": reviewer_name_key(reviewer_id), "id": reviewer_id},
            )
    for column in ("name_key", "api_token_hash"):
        connection.execute(
            text(f"CREATE UNIQUE INDEX IF NOT EXISTS ix_{TABLE}_{column} ON {TABLE} ({column})")
        )
