"""Alembic revisions of the store, one file each (see ../__init__.py)."""
