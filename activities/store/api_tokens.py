"""Personal API tokens: issued with an expiry, listed, revoked one by one or all at once.

The token (`signoff user token`) is for an operator without a password, e.g. behind a
trusted auth proxy, who decides from the command line or through `/api/`. It is 32
random bytes: a fast SHA-256 is enough to store it (a slow hash protects guessable
secrets; this one is not guessable), and it lets a request find its row by one indexed
lookup. A reviewer may hold several (one per script, say); each has an id, so one can
be revoked without the others. A password change and a disable revoke them all
(`revoke_all_of`, in the change's own transaction).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, select, update
from sqlalchemy.orm import Session

from activities.store.account_schema import ApiToken
from activities.store.database import use_session
from activities.store.schema import Reviewer

API_TOKEN_PREFIX = "so_"  # says what it is when found in a log or a secret scanner
API_TOKEN_BYTES = 32


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token(
    session: Session, reviewer: Reviewer, lifetime: timedelta, now: datetime
) -> tuple[ApiToken, str]:
    """Inside the caller's transaction: a new token for the reviewer; the token itself is
    returned once and only its hash is kept."""
    token = API_TOKEN_PREFIX + secrets.token_urlsafe(API_TOKEN_BYTES)
    row = ApiToken(
        reviewer_id=reviewer.id,
        token_hash=token_hash(token),
        created_at=now,
        expires_at=now + lifetime,
    )
    session.add(row)
    session.flush()  # gives the row its id
    return row, token


def revoke_all_of(session: Session, reviewer_id: str, now: datetime) -> int:
    """Inside the caller's transaction: every live token of the reviewer ends now."""
    result = session.execute(
        update(ApiToken)
        .where(ApiToken.reviewer_id == reviewer_id, ApiToken.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def tokens_of(source: Session | Engine, reviewer_id: str) -> list[ApiToken]:
    """Every token the reviewer was issued, oldest first (hashes included: never show them)."""
    query = select(ApiToken).where(ApiToken.reviewer_id == reviewer_id).order_by(ApiToken.id)
    with use_session(source) as session:
        return list(session.scalars(query))


def moment(value: datetime) -> str:
    return f"{value.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


@dataclass(frozen=True)
class Proof:
    """The active reviewer a credential (a token, a password) proves, or why it proves
    no one: a sentence that says what to do."""

    reviewer: Reviewer | None
    problem: str | None = None


UNKNOWN_TOKEN = (
    "The API token is not one signoff issued (or it was mistyped). An administrator "
    "issues one with `signoff user token NAME`."
)


def check_token(source: Session | Engine, token: str, now: datetime) -> Proof:
    """Whom the token proves: refused when unknown, revoked, expired, or its reviewer is
    disabled; each refusal says which, and what to do."""
    if not token.startswith(API_TOKEN_PREFIX):
        return Proof(None, UNKNOWN_TOKEN)
    query = (
        select(ApiToken, Reviewer)
        .join(Reviewer, Reviewer.id == ApiToken.reviewer_id)
        .where(ApiToken.token_hash == token_hash(token))
    )
    with use_session(source) as session:
        found = session.execute(query).one_or_none()
    if found is None:
        return Proof(None, UNKNOWN_TOKEN)
    row, reviewer = found
    again = f"Ask an administrator for a new one (`signoff user token {reviewer.id}`)."
    if row.revoked_at is not None:
        return Proof(None, f"API token {row.id} was revoked at {moment(row.revoked_at)}. {again}")
    if row.expires_at <= now:
        return Proof(None, f"API token {row.id} expired at {moment(row.expires_at)}. {again}")
    if not reviewer.active:
        return Proof(None, f"Reviewer '{reviewer.id}' is disabled: their API tokens do not count.")
    return Proof(reviewer)


def token_reviewer(
    source: Session | Engine, token: str, now: datetime | None = None
) -> Reviewer | None:
    """The active reviewer this token proves; None for an unknown, revoked or expired
    token, and for a disabled reviewer's (`check_token` says which)."""
    return check_token(source, token, now or datetime.now(UTC)).reviewer
