"""Standing rules (docs/standing-rules.md): `standing_rules` holds each rule an
administrator made, signed by the decision service; `standing_rule_uses` each effect a
rule approved, keyed by the effect.

A copy of the tables as they were on the day, not an import of `schema.py` (see
`baseline.py`).

Revision ID: 0008_rules
Revises: 0007_languages
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_rules"
down_revision = "0007_languages"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "standing_rules",
        sa.Column("id", sa.String(128), primary_key=True),
        sa.Column("tenant_id", sa.String(128), sa.ForeignKey("tenants.id"), nullable=False),
        sa.Column("tool", sa.String(128), nullable=False),
        sa.Column("max_amount_minor", sa.Integer(), nullable=True),
        sa.Column("currency", sa.String(3), nullable=True),
        sa.Column("customer", sa.String(200), nullable=True),
        sa.Column("category", sa.String(64), nullable=True),
        sa.Column("created_by", sa.String(128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("max_uses", sa.Integer(), nullable=False),
        sa.Column("uses", sa.Integer(), nullable=False),
        sa.Column("shadow", sa.Boolean(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_by", sa.String(128), nullable=True),
        sa.Column("key_id", sa.String(16), nullable=False),
        sa.Column("signature", sa.String(128), nullable=False),
    )
    op.create_index("ix_standing_rules_tenant_tool", "standing_rules", ["tenant_id", "tool"])
    op.create_table(
        "standing_rule_uses",
        sa.Column("effect_key", sa.String(255), primary_key=True),
        sa.Column("rule_id", sa.String(128), sa.ForeignKey("standing_rules.id"), nullable=False),
        sa.Column("run_id", sa.String(255), nullable=False),
        sa.Column("action_hash", sa.String(64), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_standing_rule_uses_rule_id", "standing_rule_uses", ["rule_id"])


def downgrade() -> None:
    op.drop_index("ix_standing_rule_uses_rule_id", "standing_rule_uses")
    op.drop_table("standing_rule_uses")
    op.drop_index("ix_standing_rules_tenant_tool", "standing_rules")
    op.drop_table("standing_rules")
