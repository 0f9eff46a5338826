"""A reviewer's decision keeps the action its signature names: `decisions.action` holds
the PendingAction (JSON) whose hash the signed decision carries, so that `signoff audit
verify` can recompute that hash and check that the order, amount and currency the row
shows are that action's. Nullable: rows of no reviewer's decision carry none, and rows
written before this revision have none (verify counts them as not covered).

Revision ID: 0011_decision_actions
Revises: 0010_waiting_amount_optional
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_decision_actions"
down_revision = "0010_waiting_amount_optional"
branch_labels = None
depends_on = None


KEPT = "action IS NOT NULL"


def upgrade() -> None:
    op.add_column("decisions", sa.Column("action", sa.Text, nullable=True))
    # Each audit page asks where a tenant's chain began to keep actions: an index of
    # those rows alone answers at once (no row written before this revision is in it).
    op.create_index(
        "ix_decisions_tenant_kept_seq",
        "decisions",
        ["tenant_id", "seq"],
        sqlite_where=sa.text(KEPT),
        postgresql_where=sa.text(KEPT),
    )


def downgrade() -> None:
    op.drop_index("ix_decisions_tenant_kept_seq", table_name="decisions")
    with op.batch_alter_table("decisions") as batch:
        batch.drop_column("action")
