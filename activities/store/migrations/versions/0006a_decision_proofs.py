"""A reviewer's decision keeps its proof in the audit: `decisions.proof` holds the
signed decision (JSON, as the decision service signed it) of every approval, first
approval and rejection, so that `signoff audit verify` can check, from the store and
the public keys alone, that the named reviewer decided that action. Nullable: the run's
own records (expired, voided, …), effects and account events carry none, and rows
written before this revision have none (verify names them).

Revision ID: 0006_decision_proofs
Revises: 0005_accounts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_decision_proofs"
down_revision = "0005_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("decisions", sa.Column("proof", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.drop_column("proof")
