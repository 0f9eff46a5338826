"""Deciding from Slack and from an e-mail link (docs/ui/slack.md): the Slack users
linked to reviewers, the Slack requests already taken (a replay decides nothing), the
codes that link a Slack user, and the one-tap decision links of e-mails.

A copy of the tables as they were on the day, not an import of `schema.py` (see
`baseline.py`).

Revision ID: 0007_slack
Revises: 0006_stripe
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_slack"
down_revision = "0006_stripe"
branch_labels = None
depends_on = None


def _reviewer() -> sa.Column[str]:
    return sa.Column(
        "reviewer_id",
        sa.String(128),
        sa.ForeignKey("reviewers.id", ondelete="CASCADE"),
        nullable=False,
    )


def _tenant(primary_key: bool = False) -> sa.Column[str]:
    return sa.Column(
        "tenant_id",
        sa.String(128),
        sa.ForeignKey("tenants.id"),
        primary_key=primary_key,
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "slack_links",
        _tenant(primary_key=True),
        sa.Column("team_id", sa.String(64), primary_key=True),
        sa.Column("slack_user_id", sa.String(64), primary_key=True),
        _reviewer(),
        sa.Column("linked_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("tenant_id", "team_id", "reviewer_id"),
    )
    op.create_index("ix_slack_links_reviewer_id", "slack_links", ["reviewer_id"])
    op.create_table(
        "slack_requests",
        sa.Column("signature_hash", sa.String(64), primary_key=True),
        sa.Column("tenant_id", sa.String(128), nullable=False),
        sa.Column("signed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_slack_requests_signed_at", "slack_requests", ["signed_at"])
    op.create_table(
        "slack_link_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        _tenant(),
        sa.Column("team_id", sa.String(64), nullable=False),
        sa.Column("slack_user_id", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_slack_link_codes_expires_at", "slack_link_codes", ["expires_at"])
    op.create_table(
        "email_links",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        _tenant(),
        _reviewer(),
        sa.Column("run_id", sa.String(255), nullable=False),
        sa.Column("action_hash", sa.String(64), nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_email_links_reviewer", "email_links", ["reviewer_id"])


def downgrade() -> None:
    op.drop_index("ix_email_links_reviewer", "email_links")
    op.drop_table("email_links")
    op.drop_index("ix_slack_link_codes_expires_at", "slack_link_codes")
    op.drop_table("slack_link_codes")
    op.drop_index("ix_slack_requests_signed_at", "slack_requests")
    op.drop_table("slack_requests")
    op.drop_index("ix_slack_links_reviewer_id", "slack_links")
    op.drop_table("slack_links")
