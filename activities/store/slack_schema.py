"""Tables of deciding from outside the UI: Slack links, Slack requests seen, one-time codes.

Kept beside `schema.py` (same `Base`, the same migrations): `activities/store/__init__`
imports this module so that the models and `Base.metadata` always include them.

Only hashes of one-time codes and of Slack signatures are stored: a copy of the
database redeems no code and replays no request.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from activities.store.schema import HASH_LENGTH, ID_LENGTH, KEY_LENGTH, Base, UtcDateTime

# A Slack id (user U..., workspace T...) is short; Slack documents no maximum.
SLACK_ID_LENGTH = 64


class SlackLink(Base):
    """A Slack user of a tenant's workspace, linked by the reviewer it acts as.

    Written only when a signed-in reviewer redeemed a code Slack's signed request asked
    for (slack_links.py): Slack vouched for the user, the UI's session for the reviewer.
    """

    __tablename__ = "slack_links"
    __table_args__ = (UniqueConstraint("tenant_id", "team_id", "reviewer_id"),)

    tenant_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("tenants.id"), primary_key=True
    )
    team_id: Mapped[str] = mapped_column(String(SLACK_ID_LENGTH), primary_key=True)
    slack_user_id: Mapped[str] = mapped_column(String(SLACK_ID_LENGTH), primary_key=True)
    reviewer_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("reviewers.id", ondelete="CASCADE"), index=True
    )
    linked_at: Mapped[datetime] = mapped_column(UtcDateTime)


class SlackRequest(Base):
    """A signed Slack request already taken: the same signature again decides nothing."""

    __tablename__ = "slack_requests"

    signature_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    signed_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)
    received_at: Mapped[datetime] = mapped_column(UtcDateTime)


class SlackLinkCode(Base):
    """A code given to an unlinked Slack user (ephemerally, in Slack): single use, short."""

    __tablename__ = "slack_link_codes"

    code_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("tenants.id"))
    team_id: Mapped[str] = mapped_column(String(SLACK_ID_LENGTH))
    slack_user_id: Mapped[str] = mapped_column(String(SLACK_ID_LENGTH))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)
    used_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class EmailLink(Base):
    """A one-tap decision link for an e-mail: one reviewer, one action, one verdict,
    single use, minutes long. Rows stay after use: who used which link, and when."""

    __tablename__ = "email_links"
    __table_args__ = (Index("ix_email_links_reviewer", "reviewer_id"),)

    code_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("tenants.id"))
    reviewer_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("reviewers.id", ondelete="CASCADE")
    )
    run_id: Mapped[str] = mapped_column(String(KEY_LENGTH))
    action_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    verdict: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
