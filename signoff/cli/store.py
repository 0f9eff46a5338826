"""The store for one command: opened from the settings, closed on the way out, and a
store that cannot be opened, or a change it refuses, said in one sentence (exit 2)
rather than a stack trace."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from signoff.cli.support import fail, settings
from signoff.config.settings import Settings
from signoff.service.store import Store, StoreError, close_store, open_store

T = TypeVar("T")


@contextmanager
def opened_store(current: Settings) -> Iterator[Store]:
    try:
        store = open_store(current)
    except StoreError as error:  # a schema this process may not or cannot use, or no store
        fail(str(error))
    try:
        yield store
    finally:
        close_store(store)


def in_store(change: Callable[[Store], T]) -> T:
    """Run one change on the store the settings name. What the store refuses (an unknown
    name, a name taken, a weak password) exits 2 with the store's own sentence."""
    # Here, not above: `signoff pending` opens the store and needs no accounts module.
    from signoff.service.accounts import WeakPassword

    with opened_store(settings()) as store:
        try:
            return change(store)
        except (StoreError, WeakPassword) as error:
            fail(str(error))
