"""The inbox's read model: `waiting_actions`, one row per (run, action) while it waits
(see `activities/store/waiting_actions.py`). The first page of the inbox at
10,000 waiting must not need Temporal's visibility, which cannot sort by expiry.

A copy of the table as it was on the day, not an import of `schema.py` (see
`baseline.py`). Rows of runs already waiting come from the reconciliation at the next
worker start.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "waiting_actions",
        sa.Column("run_id", sa.String(255), primary_key=True),
        sa.Column("action_hash", sa.String(64), primary_key=True),
        sa.Column("tenant_id", sa.String(128), sa.ForeignKey("tenants.id"), nullable=False),
        sa.Column("ticket_id", sa.String(128), nullable=False),
        sa.Column("order_id", sa.String(128), nullable=False),
        sa.Column("amount_minor", sa.Integer, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("approvals_required", sa.Integer, nullable=False),
        sa.Column("approvals_given", sa.Integer, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("action", sa.Text, nullable=False),
    )
    op.create_index(
        "ix_waiting_actions_tenant_expiry",
        "waiting_actions",
        ["tenant_id", "expires_at", "action_hash"],
    )
    op.create_index("ix_waiting_actions_expiry", "waiting_actions", ["expires_at", "action_hash"])
    op.create_index(
        "ix_waiting_actions_tenant_amount",
        "waiting_actions",
        ["tenant_id", "amount_minor", "action_hash"],
    )

    op.create_index(
        "ix_waiting_actions_tenant_mode_expiry",
        "waiting_actions",
        ["tenant_id", "mode", "expires_at", "action_hash"],
    )
    op.create_index("ix_waiting_actions_tenant_run", "waiting_actions", ["tenant_id", "run_id"])


def downgrade() -> None:
    op.drop_table("waiting_actions")
