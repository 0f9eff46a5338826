"""A signed decision is spent on one effect: `decision_nonces.effect_key` names the
effect (its idempotency key) that used it, written in the effect's own transaction
(`activities/store/effect_proofs.py`). Nullable: a nonce is claimed first by the run's
`verify_decision`, and only later, if at all, by an effect.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("decision_nonces", sa.Column("effect_key", sa.String(255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("decision_nonces") as batch:
        batch.drop_column("effect_key")
