"""The approval insight's columns on the audit (activities/store/insight_columns.py):
the outcome of the request a row ends, the action's tool, a rejection's category, the
wait from request to decision in milliseconds, and the standing rule a rule's row names;
with a covering index of a tenant's period and an index that finds an action's rows.
Both indexes hold only the rows with an outcome.

Rows written before this revision keep empty columns: the audit is append-only (on
PostgreSQL a trigger refuses any UPDATE, append_only.py), so the insight counts the
decisions written from this revision on (docs/ui/approval-insight.md says so).

Revision ID: 0013_decision_insight
Revises: 0012_started_runs
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_decision_insight"
down_revision = "0012_started_runs"
branch_labels = None
depends_on = None

HAS_OUTCOME = "outcome IS NOT NULL"
INSIGHT_COLUMNS = (
    "outcome",
    "kind",
    "tool",
    "reviewer_id",
    "category",
    "currency",
    "amount_minor",
    "waited_ms",
    "seq",
)


def upgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.add_column(sa.Column("outcome", sa.String(16), nullable=True))
        batch.add_column(sa.Column("tool", sa.String(128), nullable=True))
        batch.add_column(sa.Column("category", sa.String(32), nullable=True))
        batch.add_column(sa.Column("waited_ms", sa.BigInteger, nullable=True))
        batch.add_column(sa.Column("rule_id", sa.String(128), nullable=True))
    op.create_index(
        "ix_decisions_tenant_insight",
        "decisions",
        ["tenant_id", "decided_at", *INSIGHT_COLUMNS],
        sqlite_where=sa.text(HAS_OUTCOME),
        postgresql_where=sa.text(HAS_OUTCOME),
    )
    op.create_index(
        "ix_decisions_tenant_run_outcome",
        "decisions",
        ["tenant_id", "run_id", "action_hash", "outcome"],
        sqlite_where=sa.text(HAS_OUTCOME),
        postgresql_where=sa.text(HAS_OUTCOME),
    )


def downgrade() -> None:
    op.drop_index("ix_decisions_tenant_run_outcome", table_name="decisions")
    op.drop_index("ix_decisions_tenant_insight", table_name="decisions")
    with op.batch_alter_table("decisions") as batch:
        for column in ("rule_id", "waited_ms", "category", "tool", "outcome"):
            batch.drop_column(column)
