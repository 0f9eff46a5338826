"""One page of the inbox's read model, read with the database driver alone.

Design note (`signoff pending` in 0.3 s as a new process). The store's own
read (`activities/store/waiting_pages.py`) is SQLAlchemy's ORM, whose imports and table
declarations cost `pending` most of its start: about 1 s of CPU on a loaded 2-core
machine, against a few milliseconds for the query. The command's page (soonest expiry
first, every mode, one tenant or all) is four statements on one table, written here in
plain SQL for `sqlite3` and psycopg, with the same filters, order, keyset and counts as
`waiting_page`; tests/store/test_waiting_read.py holds the two to the same pages.

This read answers only when it is sure to read what the store's path would: a SQLite
file or a PostgreSQL URL, a store that exists and records exactly this code's schema
revision. Anything else (another driver, no store yet, another revision, an error of
the driver) raises `NotLean`, and the caller takes the store's own path, which creates,
migrates or refuses the store with its own messages.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

from activities.schema_head import HEAD_REVISION

Position = tuple[datetime, str]  # (expires_at, action_hash), as pending_cursor reads it
SQLITE_PREFIX = "sqlite:///"
POSTGRES_SCHEMES = ("postgresql", "postgresql+psycopg", "postgres")
# SQLAlchemy's storage of a DateTime in SQLite (text, UTC: UtcDateTime converts first).
SQLITE_DATETIME = "%Y-%m-%d %H:%M:%S.%f"
SQLITE_BUSY_MS = 5000
COLUMNS = "run_id, tenant_id, ticket_id, action, expires_at, action_hash"


class NotLean(Exception):
    """This read cannot answer for sure: read through the store instead."""


@dataclass(frozen=True)
class WaitingRow:
    run_id: str
    tenant_id: str
    ticket_id: str
    action: str  # the PendingAction, as JSON
    expires_at: datetime
    action_hash: str


@dataclass(frozen=True)
class WaitingRows:
    rows: list[WaitingRow]
    total: int
    waiting_runs: int
    first: int
    more: bool


class _Cursor(Protocol):
    def execute(self, query: str, params: Sequence[Any] = ...) -> Any: ...
    def fetchall(self) -> list[Any]: ...


@dataclass(frozen=True)
class _Dialect:
    mark: str  # the driver's parameter marker
    to_db: Any  # an aware datetime as the driver binds it for the column


def read_waiting(
    database_url: str, tenant_id: str | None, after: Position | None, limit: int
) -> WaitingRows:
    """The `limit` waiting actions after `after`, soonest expiry first, and the counts
    `waiting_page` gives for them; NotLean when the store's own read must answer."""
    if limit < 1:
        raise ValueError("a page holds at least one item")
    with _connected(database_url) as (cursor, dialect):
        return _page(cursor, dialect, tenant_id, after, limit)


def _page(
    cursor: _Cursor, dialect: _Dialect, tenant_id: str | None, after: Position | None, limit: int
) -> WaitingRows:
    cursor.execute("SELECT version_num FROM alembic_version")
    if [row[0] for row in cursor.fetchall()] != [HEAD_REVISION]:
        raise NotLean("the store is at another schema revision")
    mark = dialect.mark
    tenant, tenant_params = ("tenant_id = " + mark, [tenant_id]) if tenant_id else ("", [])
    beyond, beyond_params = "", []
    if after is not None:
        beyond = f"(expires_at, action_hash) > ({mark}, {mark})"
        beyond_params = [dialect.to_db(after[0]), after[1]]

    def where(*parts: str) -> str:
        kept = [part for part in parts if part]
        return f" WHERE {' AND '.join(kept)}" if kept else ""

    cursor.execute(
        f"SELECT {COLUMNS} FROM waiting_actions{where(tenant, beyond)} "
        f"ORDER BY expires_at, action_hash LIMIT {mark}",
        [*tenant_params, *beyond_params, limit + 1],
    )
    rows = [_row(found) for found in cursor.fetchall()]
    total = _count(cursor, f"SELECT count(*) FROM waiting_actions{where(tenant)}", tenant_params)
    runs = _count(
        cursor,
        f"SELECT count(DISTINCT run_id) FROM waiting_actions{where(tenant)}",
        tenant_params,
    )
    first = 0
    if after is not None:
        later = f"SELECT count(*) FROM waiting_actions{where(tenant, beyond)}"
        first = total - _count(cursor, later, [*tenant_params, *beyond_params])
    return WaitingRows(rows[:limit], total, runs, first, len(rows) > limit)


def _count(cursor: _Cursor, query: str, params: list[Any]) -> int:
    cursor.execute(query, params)
    return int(cursor.fetchall()[0][0] or 0)


def _row(found: Sequence[Any]) -> WaitingRow:
    run_id, tenant_id, ticket_id, action, expires_at, action_hash = found
    if isinstance(expires_at, str):  # SQLite: SQLAlchemy's text, in UTC
        expires_at = datetime.fromisoformat(expires_at).replace(tzinfo=UTC)
    else:
        expires_at = expires_at.astimezone(UTC)
    return WaitingRow(run_id, tenant_id, ticket_id, action, expires_at, action_hash)


def _sqlite_datetime(value: datetime) -> str:
    return value.astimezone(UTC).strftime(SQLITE_DATETIME)


@contextmanager
def _connected(database_url: str) -> Iterator[tuple[_Cursor, _Dialect]]:
    if database_url.startswith(SQLITE_PREFIX):
        with _sqlite(database_url) as cursor:
            yield cursor, _Dialect("?", _sqlite_datetime)
        return
    if urlsplit(database_url).scheme in POSTGRES_SCHEMES:
        with _postgres(database_url) as cursor:
            yield cursor, _Dialect("%s", lambda value: value)
        return
    raise NotLean("not a SQLite file or a PostgreSQL URL")


@contextmanager
def _sqlite(database_url: str) -> Iterator[_Cursor]:
    location = unquote(database_url.removeprefix(SQLITE_PREFIX))
    if "?" in location or location in ("", ":memory:") or not Path(location).is_file():
        raise NotLean("no SQLite file to read")  # the store's path creates or refuses it
    try:
        with closing(sqlite3.connect(location, isolation_level=None)) as connection:
            connection.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
            connection.execute("BEGIN")  # one snapshot for the page and its counts
            yield connection.cursor()
            connection.execute("COMMIT")
    except sqlite3.Error as error:
        raise NotLean(str(error)) from None


@contextmanager
def _postgres(database_url: str) -> Iterator[_Cursor]:
    import psycopg  # only for a PostgreSQL store

    _, _, rest = database_url.partition("://")
    try:
        with psycopg.connect(f"postgresql://{rest}") as connection:
            connection.read_only = True
            with connection.cursor() as cursor:
                yield cursor
    except psycopg.Error as error:
        raise NotLean(str(error)) from None
