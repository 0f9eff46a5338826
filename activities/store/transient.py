"""Which store errors are worth a retry: the database was busy or out of reach.

Design note. SQLite's "database is locked" (a writer held the lock past the busy
timeout), a dropped or refused PostgreSQL connection, an exhausted connection pool: the
same call a moment later is likely to work. Activities raise these for Temporal to
retry with backoff, each attempt visible in the run's history, rather than tell the
model that a tool failed (which counts toward the run's repeated-failure rules and
spends a turn). Everything else (a constraint, a bug) will fail the same way again.
"""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout


def is_transient(error: BaseException) -> bool:
    if isinstance(error, OperationalError | InterfaceError | PoolTimeout):
        return True
    # A connection the driver reported as broken mid-statement, whatever its class.
    return isinstance(error, DBAPIError) and error.connection_invalidated
