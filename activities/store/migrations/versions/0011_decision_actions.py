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


def upgrade() -> None:
    op.add_column("decisions", sa.Column("action", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.drop_column("action")
