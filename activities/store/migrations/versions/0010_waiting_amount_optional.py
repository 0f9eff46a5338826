"""A waiting action's amount and currency are optional: only a tool whose policy
declares an exposure (the refund, today) has one. Any other tool's row holds NULL,
where it held the parse of whatever argument happened to be named `amount`.

Batch mode: SQLite alters a column's nullability by copying the table.

Revision ID: 0010_waiting_amount_optional
Revises: 0009_prompt_catalogs
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_waiting_amount_optional"
down_revision = "0009_prompt_catalogs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("waiting_actions") as table:
        table.alter_column("amount_minor", existing_type=sa.Integer, nullable=True)
        table.alter_column("currency", existing_type=sa.String(3), nullable=True)


def downgrade() -> None:
    # A row without an amount waits for no refund: it sorts as nothing to pay.
    op.execute("UPDATE waiting_actions SET amount_minor = 0 WHERE amount_minor IS NULL")
    op.execute("UPDATE waiting_actions SET currency = '' WHERE currency IS NULL")
    with op.batch_alter_table("waiting_actions") as table:
        table.alter_column("amount_minor", existing_type=sa.Integer, nullable=False)
        table.alter_column("currency", existing_type=sa.String(3), nullable=False)
