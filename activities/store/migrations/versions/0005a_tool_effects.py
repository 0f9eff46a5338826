"""Any irreversible tool: `tool_effects`, one row per idempotency key of a tool call
carried out (activities/store/tool_effects.py), and `customer_replies`, the built-in
helpdesk's outbox that `send_reply` writes.

A copy of the tables as they were on the day, not an import of `schema.py` (see
`baseline.py`).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tool_effects",
        sa.Column("idempotency_key", sa.String(255), primary_key=True),
        sa.Column("tenant_id", sa.String(128), sa.ForeignKey("tenants.id"), nullable=False),
        sa.Column("run_id", sa.String(255), nullable=False),
        sa.Column("tool", sa.String(128), nullable=False),
        sa.Column("action_hash", sa.String(64), nullable=False),
        sa.Column("approvers", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("output", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "customer_replies",
        sa.Column("id", sa.String(128), primary_key=True),
        sa.Column("tenant_id", sa.String(128), sa.ForeignKey("tenants.id"), nullable=False),
        sa.Column("ticket_id", sa.String(128), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("idempotency_key", sa.String(255), nullable=False, unique=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("customer_replies")
    op.drop_table("tool_effects")
