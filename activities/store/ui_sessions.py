"""Server-side sessions of the reviewer UI: started at sign-in, ended at once.

Design note. A signed cookie alone cannot be taken back: a copy saved before sign-out
would keep working until it expires. So the cookie carries a random session id, and
this table says whether it is still open. Sign-out deletes the row; a password change
and `signoff user disable` delete all of the reviewer's rows; the lifetime is absolute
(`expires_at` never moves); and a session counts only while its reviewer is active.
Only the id's SHA-256 is stored: a copy of the database opens no session.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete, select
from sqlalchemy.orm import Session

from activities.store.account_schema import UiSession
from activities.store.database import use_session, write_transaction
from activities.store.schema import Reviewer

SESSION_ID_BYTES = 32


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def start_session(
    engine: Engine,
    reviewer_id: str,
    password_hash: str | None,
    lifetime: timedelta,
    now: datetime | None = None,
) -> str | None:
    """Open a session for the reviewer whose password was checked against
    `password_hash`; returns the id the cookie carries, or None when the reviewer was
    disabled, deleted or got a new password since that check."""
    now = now or datetime.now(UTC)
    session_id = secrets.token_urlsafe(SESSION_ID_BYTES)
    with write_transaction(engine) as session:
        # Locked: a password change or a disable committing meanwhile either ends this
        # session with the others, or is seen here (they update this row first).
        query = select(Reviewer).where(Reviewer.id == reviewer_id).with_for_update()
        reviewer = session.scalars(query).one_or_none()
        if reviewer is None or not reviewer.active or reviewer.password_hash != password_hash:
            return None
        # Expired rows go here, at sign-in, so the table stays as small as the live set.
        session.execute(delete(UiSession).where(UiSession.expires_at <= now))
        session.add(
            UiSession(
                id_hash=_hash(session_id),
                reviewer_id=reviewer_id,
                created_at=now,
                expires_at=now + lifetime,
            )
        )
    return session_id


def session_reviewer(
    source: Session | Engine, session_id: str, now: datetime | None = None
) -> Reviewer | None:
    """The active reviewer of an open, unexpired session; None otherwise."""
    now = now or datetime.now(UTC)
    query = (
        select(Reviewer)
        .join(UiSession, UiSession.reviewer_id == Reviewer.id)
        .where(
            UiSession.id_hash == _hash(session_id),
            UiSession.expires_at > now,
            Reviewer.active.is_(True),
        )
    )
    with use_session(source) as session:
        return session.scalars(query).one_or_none()


def end_session(engine: Engine, session_id: str) -> None:
    with write_transaction(engine) as session:
        session.execute(delete(UiSession).where(UiSession.id_hash == _hash(session_id)))


def end_sessions_of(session: Session, reviewer_id: str) -> int:
    """Inside the caller's transaction: every session of the reviewer ends with it."""
    result = session.execute(delete(UiSession).where(UiSession.reviewer_id == reviewer_id))
    return int(getattr(result, "rowcount", 0) or 0)
