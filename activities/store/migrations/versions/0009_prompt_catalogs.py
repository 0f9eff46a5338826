"""Prompt catalogs (workflows/prompt_catalog.py): the system prompt and the tools'
descriptions and schemas a run offers its model, written once, keyed by their SHA-256.

A copy of the table as it was on the day, not an import of its module (see
`baseline.py`).

Revision ID: 0009_prompt_catalogs
Revises: 0008_rules
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_prompt_catalogs"
down_revision = "0008_rules"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "prompt_catalogs",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("prompt_catalogs")
