"""Reviewers' passkeys, for the step-up on large approvals (docs/passkeys.md): one row
per WebAuthn credential, with its public key, its sign count and the decision service's
signature over its registration.

A copy of the table as it was on the day, not an import of `schema.py` (see
`baseline.py`).

Revision ID: 0006_passkeys
Revises: 0006_decision_proofs
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_passkeys"
down_revision = "0006_decision_proofs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "passkeys",
        sa.Column("credential_id", sa.String(1400), primary_key=True),
        sa.Column(
            "reviewer_id",
            sa.String(128),
            sa.ForeignKey("reviewers.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("public_key", sa.Text, nullable=False),
        sa.Column("sign_count", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("key_id", sa.String(64), nullable=False),
        sa.Column("signature", sa.String(128), nullable=False),
    )
    op.create_index("ix_passkeys_reviewer_id", "passkeys", ["reviewer_id"])


def downgrade() -> None:
    op.drop_index("ix_passkeys_reviewer_id", "passkeys")
    op.drop_table("passkeys")
