"""Engine and sessions. Sync SQLAlchemy: async callers wrap it in `asyncio.to_thread`.

Design note, SQLite transactions. Python's sqlite3 driver, in its default legacy mode,
emits BEGIN only before an INSERT/UPDATE/DELETE: the SELECTs before it run outside any
transaction, so "read the totals, check, write" would not be one transaction. We use
SQLAlchemy's documented recipe for SQLite (the dialect's "Transactions with SQLite and
the sqlite3 driver" section): the pool's `connect` hook turns the driver's own BEGIN off
(`isolation_level = None`) and the `begin` hook emits ours. Readers get a plain
(deferred) BEGIN, a consistent snapshot. Writers go through `write_transaction`, whose
connections carry an execution option that makes the hook emit `BEGIN IMMEDIATE`: the
write lock is taken before the first read, so two writers queue on `busy_timeout`
instead of both reading the same totals (or failing with SQLITE_BUSY when a deferred
reader tries to become a writer). On PostgreSQL the hooks are not installed; writers
that need it lock rows with `SELECT ... FOR UPDATE`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, Table, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from activities.store import append_only  # noqa: F401  (installs the audit's trigger)
from activities.store.errors import StoreNotMigrated
from activities.store.schema_revision import HEAD_REVISION, at_head

# The worker's activities and the CLI write the same file; wait rather than fail.
SQLITE_BUSY_TIMEOUT_MS = 5000
# Execution option read by the SQLite `begin` hook; ignored by other databases.
BEGIN_IMMEDIATE_OPTION = "signoff_begin_immediate"


def make_engine(url: str, *, migrate: bool = True) -> Engine:
    """An engine on the store at `url`, its schema at this code's revision. `migrate`:
    bring it there (the owner role, or SQLite); False: refuse a store that is not there
    (the runtime role of a PostgreSQL store, which may not change the schema)."""
    parsed = make_url(url)
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if is_sqlite and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(parsed)
    if is_sqlite:
        event.listen(engine, "connect", _configure_sqlite)
        event.listen(engine, "begin", _begin_sqlite)
    try:
        # Alembic revisions, in one writing transaction: two processes starting at once
        # (worker and CLI) migrate one after the other (schema_migrations.py).
        if not at_head(engine):  # Alembic is loaded only then (schema_revision.py)
            if not migrate:
                with engine.connect():  # a store out of reach says so, as itself
                    pass
                raise StoreNotMigrated(HEAD_REVISION)
            from activities.store.schema_migrations import migrate as run_migrations

            run_migrations(engine, writer(engine))
    except BaseException:
        engine.dispose()
        raise
    return engine


def engine_beside(engine: Engine, connections: int) -> Engine:
    """An engine on the same store as `engine`, with a pool of its own of at most
    `connections`: what waits on one pool cannot take the other's connections
    (activities/local_lane.py). An in-memory SQLite store is one connection's own
    database, so it gets `engine` itself."""
    if engine.dialect.name == "sqlite" and engine.url.database in (None, "", ":memory:"):
        return engine
    other = create_engine(engine.url, pool_size=connections, max_overflow=0)
    if engine.dialect.name == "sqlite":
        event.listen(other, "connect", _configure_sqlite)
        event.listen(other, "begin", _begin_sqlite)
    return other


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    # No BEGIN from the driver: `_begin_sqlite` emits it (see the module note).
    dbapi_connection.isolation_level = None
    # SQLite ignores foreign keys unless asked, per connection; WAL lets readers
    # (the reviewer UI) run while a worker writes.
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


def _begin_sqlite(connection: Connection) -> None:
    immediate = connection.get_execution_options().get(BEGIN_IMMEDIATE_OPTION, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def writer(engine: Engine) -> Engine:
    """The same engine and pool, for transactions that will write (see the module note)."""
    return engine.execution_options(**{BEGIN_IMMEDIATE_OPTION: True})


@contextmanager
def write_transaction(engine: Engine, isolation_level: str | None = None) -> Iterator[Session]:
    """One transaction that writes: committed on success, rolled back on an exception.

    `isolation_level` applies on PostgreSQL (and any server database); SQLite's
    `BEGIN IMMEDIATE` transaction is serializable already and takes no other level.
    """
    bound = writer(engine)
    if isolation_level is not None and engine.dialect.name != "sqlite":
        bound = bound.execution_options(isolation_level=isolation_level)
    with Session(bound, expire_on_commit=False) as session, session.begin():
        yield session


@contextmanager
def write_connection(engine: Engine, isolation_level: str | None = None) -> Iterator[Connection]:
    """`write_transaction` for Core statements: the same lock and isolation, no Session
    (for the hot writes of a run, where the ORM's unit of work only cost time)."""
    bound = writer(engine)
    if isolation_level is not None and engine.dialect.name != "sqlite":
        bound = bound.execution_options(isolation_level=isolation_level)
    with bound.begin() as connection:
        yield connection


def connection_of(transaction: Session | Connection) -> Connection:
    """The connection of a caller's transaction, for Core statements in it: a Session's
    own (its transaction, its lock), or the connection itself."""
    return transaction.connection() if isinstance(transaction, Session) else transaction


def table_of(model: type[Any]) -> Table:
    """The table of a mapped class, typed as one, for Core statements on it."""
    table = model.__table__
    assert isinstance(table, Table)
    return table


@contextmanager
def use_session(source: Session | Engine) -> Iterator[Session]:
    """Reuse a caller's session (one transaction), or open a short one on an engine."""
    if isinstance(source, Session):
        yield source
        return
    with Session(source, expire_on_commit=False) as session:
        yield session
