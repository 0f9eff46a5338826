"""Engine and sessions. Sync SQLAlchemy: async callers wrap it in `asyncio.to_thread`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from activities.store.schema import Base

# The worker's activities and the CLI write the same file; wait rather than fail.
SQLITE_BUSY_TIMEOUT_MS = 5000


def make_engine(url: str) -> Engine:
    parsed = make_url(url)
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if is_sqlite and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(parsed)
    if is_sqlite:
        event.listen(engine, "connect", _configure_sqlite)
    Base.metadata.create_all(engine)
    return engine


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    # SQLite ignores foreign keys unless asked, per connection; WAL lets readers
    # (the reviewer UI) run while a worker writes.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.close()


def session_factory(engine: Engine) -> sessionmaker[Session]:
    # Objects stay readable after commit: callers return them past the session.
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def use_session(source: Session | Engine) -> Iterator[Session]:
    """Reuse a caller's session (one transaction), or open a short one on an engine."""
    if isinstance(source, Session):
        yield source
        return
    with Session(source, expire_on_commit=False) as session:
        yield session
