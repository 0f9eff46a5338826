"""Opening the shop's store for a face: the one place a face gets a database engine.

The faces (reviewer UI, CLI) never build an engine themselves: they ask for the store
named by `Settings`, so that whatever opening the store means (creating or upgrading the
schema, SQLite's pragmas) happens the same way for both.
"""

from __future__ import annotations

from sqlalchemy import Engine

from activities.store import StoreError, make_engine
from signoff.config.settings import Settings

__all__ = ["Engine", "StoreError", "open_store"]


def open_store(settings: Settings) -> Engine:
    """The store `settings` name, ready to use; the caller disposes of it."""
    return make_engine(settings.resolved_database_url)
