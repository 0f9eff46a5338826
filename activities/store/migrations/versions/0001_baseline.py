"""The store's schema as it was when migrations began: every table, and on PostgreSQL
the trigger that keeps the audit append-only (see `baseline.py`).

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

from alembic import op

from activities.store.migrations.baseline import baseline_metadata, create_baseline

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    create_baseline(op.get_bind())


def downgrade() -> None:
    bind = op.get_bind()
    baseline_metadata().drop_all(bind)
    if bind.dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS signoff_decisions_append_only()")
