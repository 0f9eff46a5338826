"""Orders paid through a payment platform: `payment_links` names, per order, the
platform ("stripe") and the payment there (a PaymentIntent `pi_...` or a Charge
`ch_...`). For such an order the platform, never the order's own columns, says what was
paid and refunded (activities/payments/). The embedded ledger's orders have no row.

A copy of the table as it was on the day, not an import of `schema.py` (see
`baseline.py`).

Revision ID: 0006_stripe
Revises: 0006_intake
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_stripe"
down_revision = "0006_intake"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "payment_links",
        sa.Column("tenant_id", sa.String(128), primary_key=True),
        sa.Column("order_id", sa.String(128), primary_key=True),
        sa.Column("provider", sa.String(32), nullable=False),
        sa.Column("payment_ref", sa.String(128), nullable=False),
        sa.Column("linked_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["tenant_id", "order_id"], ["orders.tenant_id", "orders.id"]),
    )


def downgrade() -> None:
    op.drop_table("payment_links")
