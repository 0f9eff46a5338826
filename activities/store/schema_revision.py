"""Whether the store is at this code's schema revision, read without Alembic.

Nearly every start finds the store already migrated; Alembic costs a command that only
reads the store (`signoff pending`) half a second to import, so the common case reads
`alembic_version` with SQLAlchemy alone and `schema_migrations.py` (Alembic) is loaded
only when the revisions differ. HEAD_REVISION is the newest file in
`migrations/versions/`, set in `activities/schema_head.py` (readable without SQLAlchemy);
tests/store/test_migrations.py holds it to Alembic's own head.
"""

from __future__ import annotations

from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError

from activities.schema_head import HEAD_REVISION

__all__ = ["HEAD_REVISION", "at_head"]


def at_head(engine: Engine) -> bool:
    """True when the store records exactly HEAD_REVISION; False for anything else (no
    table yet, another revision, a read that failed): `migrate` then looks closer."""
    try:
        with engine.connect() as connection:
            found = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    except SQLAlchemyError:
        return False
    return [row[0] for row in found] == [HEAD_REVISION]
