"""The approval insight's days (activities/store/insight_days.py): one row per tenant and
UTC day, what the day's audit rows add up to, kept by the audit's writer, so that a
period's first view reads a row a day instead of every audit row. And an index of the
shadow rules' rows alone, which the insight reads from the index (approval_insight.py):
3% of a busy log, where the period's range of the insight's index read every row's
table page for the run and action of each.

No rows are written here: a day gets its row from its first row appended after this
revision (summed with the day's older rows) or, for a past day, at the first view of a
period that holds it (insight_period.roll_up), which is the code's own sum, not a copy
of it as it was on the day. A copy of the table as it was on the day, not an import of
its module (see `baseline.py`).

Revision ID: 0014_insight_days
Revises: 0013_decision_insight
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_insight_days"
down_revision = "0013_decision_insight"
branch_labels = None
depends_on = None

SHADOW_ROWS = "outcome = 'rule_shadow'"


def upgrade() -> None:
    op.create_table(
        "insight_days",
        sa.Column("tenant_id", sa.String(128), sa.ForeignKey("tenants.id"), primary_key=True),
        sa.Column("day", sa.Date, primary_key=True),
        sa.Column("head_seq", sa.Integer, nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
    )
    op.create_index(
        "ix_decisions_tenant_shadow",
        "decisions",
        ["tenant_id", "outcome", "decided_at", "rule_id", "run_id", "action_hash", "seq"],
        sqlite_where=sa.text(SHADOW_ROWS),
        postgresql_where=sa.text(SHADOW_ROWS),
    )


def downgrade() -> None:
    op.drop_index("ix_decisions_tenant_shadow", table_name="decisions")
    op.drop_table("insight_days")
