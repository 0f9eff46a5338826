"""Helpdesk intake and connectors: `intake_deliveries` (a webhook delivery sent again
starts nothing new), `connector_breakers` (each write connector's circuit breaker, in
the store so that every worker and `signoff connectors` share it), and where a reply in
the outbox was delivered (`customer_replies.delivered_to`, `delivered_at`).

A copy of the tables as they were on the day, not an import of `schema.py` (see
`baseline.py`).

Revision ID: 0006_intake
Revises: 0006_passkeys
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_intake"
down_revision = "0006_passkeys"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "intake_deliveries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tenant_id", sa.String(128), sa.ForeignKey("tenants.id"), nullable=False),
        sa.Column("source", sa.String(32), nullable=False),
        sa.Column("source_ticket_id", sa.String(128), nullable=False),
        sa.Column("event_id", sa.String(128), nullable=False),
        sa.Column("ticket_id", sa.String(128), nullable=False),
        sa.Column("run_id", sa.String(255), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("tenant_id", "source", "source_ticket_id", "event_id"),
        sa.UniqueConstraint("tenant_id", "ticket_id"),
    )
    op.create_table(
        "connector_breakers",
        sa.Column("name", sa.String(128), primary_key=True),
        sa.Column("consecutive_failures", sa.Integer, nullable=False),
        sa.Column("open_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("trial_started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("customer_replies") as table:
        table.add_column(sa.Column("delivered_to", sa.String(128), nullable=True))
        table.add_column(sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("customer_replies") as table:
        table.drop_column("delivered_at")
        table.drop_column("delivered_to")
    op.drop_table("connector_breakers")
    op.drop_table("intake_deliveries")
