"""Started runs (activities/store/started_runs.py): each run signoff's service started,
with the fingerprint of its request, written once by the starter.

A copy of the table as it was on the day, not an import of its module (see
`baseline.py`).

Revision ID: 0012_started_runs
Revises: 0011_decision_actions
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_started_runs"
down_revision = "0011_decision_actions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "started_runs",
        sa.Column("run_id", sa.String(255), primary_key=True),
        sa.Column("tenant_id", sa.String(128), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("started_runs")
