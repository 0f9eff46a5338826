"""The store for one command: opened from the settings, closed on the way out, and a
store that cannot be opened, or a change it refuses, said in one sentence (exit 2)
rather than a stack trace."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from sqlalchemy.exc import SQLAlchemyError

from signoff.cli.support import fail, settings
from signoff.config.settings import Settings
from signoff.service.accounts import WeakPassword
from signoff.service.store import Engine, StoreError, open_store

T = TypeVar("T")


@contextmanager
def opened_store(current: Settings) -> Iterator[Engine]:
    try:
        engine = open_store(current)
    except StoreError as error:  # a schema this process may not or cannot use
        fail(str(error))
    except SQLAlchemyError:
        fail(f"Cannot open the store at {current.shown_database_url}; check SIGNOFF_DATABASE_URL.")
    try:
        yield engine
    finally:
        engine.dispose()


def in_store(change: Callable[[Engine], T]) -> T:
    """Run one change on the store the settings name. What the store refuses (an unknown
    name, a name taken, a weak password) exits 2 with the store's own sentence."""
    with opened_store(settings()) as engine:
        try:
            return change(engine)
        except (StoreError, WeakPassword) as error:
            fail(str(error))
