"""API tokens get a table of their own: several per reviewer,
each with an id, an expiry and a revocation time, never deleted. The one token a
reviewer held in `reviewers.api_token_hash` moves here and expires 90 days (the
default of SIGNOFF_TOKEN_TTL_DAYS) after this revision runs; the old column is emptied
and no longer read.

A copy of the table as it was on the day, not an import of `schema.py` (see
`baseline.py`).

Revision ID: 0005_accounts
Revises: 0005
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

revision = "0005_accounts"
down_revision = "0005"
branch_labels = None
depends_on = None

CARRIED_TOKEN_DAYS = 90


def upgrade() -> None:
    tokens = op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "reviewer_id",
            sa.String(128),
            sa.ForeignKey("reviewers.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_api_tokens_reviewer_id", "api_tokens", ["reviewer_id"])
    op.create_index("ix_api_tokens_token_hash", "api_tokens", ["token_hash"], unique=True)
    connection = op.get_bind()
    held = connection.execute(
        sa.text("SELECT id, api_token_hash FROM reviewers WHERE api_token_hash IS NOT NULL")
    ).all()
    now = datetime.now(UTC)
    if held:
        op.bulk_insert(
            tokens,
            [
                {
                    "reviewer_id": reviewer_id,
                    "token_hash": token_hash,
                    "created_at": now,
                    "expires_at": now + timedelta(days=CARRIED_TOKEN_DAYS),
                    "revoked_at": None,
                }
                for reviewer_id, token_hash in held
            ],
        )
    connection.execute(sa.text("UPDATE reviewers SET api_token_hash = NULL"))


def downgrade() -> None:
    op.drop_index("ix_api_tokens_token_hash", "api_tokens")
    op.drop_index("ix_api_tokens_reviewer_id", "api_tokens")
    op.drop_table("api_tokens")
