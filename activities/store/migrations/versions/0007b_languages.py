"""The reviewer UI's language, per reviewer: `reviewer_languages` holds the tag a
reviewer chose ("fr"); without a row the browser's Accept-Language decides
(approvals_ui/locale_choice.py).

A copy of the table as it was on the day, not an import of `schema.py` (see
`baseline.py`).

Revision ID: 0007_languages
Revises: 0007_slack
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_languages"
down_revision = "0007_slack"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reviewer_languages",
        sa.Column(
            "reviewer_id",
            sa.String(128),
            sa.ForeignKey("reviewers.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("language", sa.String(16), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("reviewer_languages")
