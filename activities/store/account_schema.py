"""Tables of the reviewers' ways in: UI sessions, API tokens, chosen languages and
passkeys.

Kept beside `schema.py` (same `Base`, the same migrations): `activities/store/__init__`
imports this module so that the models and `Base.metadata` always include them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from activities.store.schema import (
    HASH_LENGTH,
    ID_LENGTH,
    LANGUAGE_LENGTH,
    PASSKEY_ID_LENGTH,
    Base,
    UtcDateTime,
)


class UiSession(Base):
    """A signed-in session of the reviewer UI, server-side so that it can be ended.

    The cookie carries a random session id; only its SHA-256 is stored here, so a copy
    of the database opens no session. The lifetime is absolute: `expires_at` is set at
    sign-in and never moves.
    """

    __tablename__ = "ui_sessions"

    id_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), primary_key=True)
    reviewer_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("reviewers.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)


class ApiToken(Base):
    """A reviewer's personal API token (`signoff user token`): only its SHA-256 is kept.

    A token counts while it is neither revoked nor past `expires_at`, and while its
    reviewer is active. Rows are never deleted: `signoff user tokens NAME` shows what was
    issued, when, and how it ended.
    """

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    reviewer_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("reviewers.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), unique=True, index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class ReviewerLanguage(Base):
    """The language the reviewer UI speaks to a reviewer ("fr"), chosen by them; without a
    row the browser's Accept-Language decides (approvals_ui/locale_choice.py). A table of
    its own, not a column: a store from before migrations is still read by these models
    while it is adopted."""

    __tablename__ = "reviewer_languages"

    reviewer_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("reviewers.id", ondelete="CASCADE"), primary_key=True
    )
    language: Mapped[str] = mapped_column(String(LANGUAGE_LENGTH))


class Passkey(Base):
    """A reviewer's registered passkey (WebAuthn credential), for the step-up on large
    approvals (docs/passkeys.md). `public_key` is the COSE key, base64url; `sign_count`
    the authenticator's counter at its last use with the decision service.

    `key_id` and `signature`: the decision service signed the registration (reviewer,
    credential id, public key, when) with its Ed25519 key, so a row written straight
    into the table by whoever can write the store verifies nothing at the effect.
    """

    __tablename__ = "passkeys"

    credential_id: Mapped[str] = mapped_column(String(PASSKEY_ID_LENGTH), primary_key=True)
    reviewer_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("reviewers.id", ondelete="CASCADE"), index=True
    )
    public_key: Mapped[str] = mapped_column(Text)
    sign_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    key_id: Mapped[str] = mapped_column(String(HASH_LENGTH))
    signature: Mapped[str] = mapped_column(String(HASH_LENGTH * 2))
