"""What an administrator changes on a reviewer: enabled or not, roles, the API token.

Every change is read on the reviewer's next request (the UI reads the reviewer from the
store each time), so none needs a restart. Disabling also ends the reviewer's sessions
in the same transaction.

The personal API token (`signoff user token`) is for an operator without a password,
e.g. behind a trusted auth proxy, who decides from the command line through `/api/`.
It is 32 random bytes: a fast SHA-256 is enough to store it (a slow hash protects
guessable secrets; this one is not guessable), and it lets a request find the reviewer
by one indexed lookup. One token per reviewer: a new one replaces the old.
"""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from activities.store.database import use_session, write_transaction
from activities.store.reviewers import require_reviewer
from activities.store.schema import Reviewer, join_list
from activities.store.ui_sessions import end_sessions_of

API_TOKEN_PREFIX = "so_"  # says what it is when found in a log or a secret scanner
API_TOKEN_BYTES = 32


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def set_active(engine: Engine, name: str, active: bool) -> Reviewer:
    """Enable or disable; disabling ends every session. Raises UnknownReviewer."""
    with write_transaction(engine) as session:
        reviewer = require_reviewer(session, name)
        reviewer.active = active
        if not active:
            end_sessions_of(session, reviewer.id)
    return reviewer


def change_roles(engine: Engine, name: str, add: list[str], remove: list[str]) -> Reviewer:
    """Add, then remove roles (a role named in both ends removed). Raises UnknownReviewer."""
    with write_transaction(engine) as session:
        reviewer = require_reviewer(session, name)
        roles = reviewer.role_list
        roles.extend(role for role in add if role not in roles)
        reviewer.roles = join_list([role for role in roles if role not in remove])
    return reviewer


def issue_token(engine: Engine, name: str) -> tuple[Reviewer, str]:
    """A new token for the reviewer, replacing any old one; the token is returned once
    and only its hash is kept. Raises UnknownReviewer."""
    token = API_TOKEN_PREFIX + secrets.token_urlsafe(API_TOKEN_BYTES)
    with write_transaction(engine) as session:
        reviewer = require_reviewer(session, name)
        reviewer.api_token_hash = _token_hash(token)
    return reviewer, token


def revoke_token(engine: Engine, name: str) -> bool:
    """Ends the reviewer's token at once; False when there was none."""
    with write_transaction(engine) as session:
        reviewer = require_reviewer(session, name)
        had_one = reviewer.api_token_hash is not None
        reviewer.api_token_hash = None
    return had_one


def token_reviewer(source: Session | Engine, token: str) -> Reviewer | None:
    """The active reviewer holding this token; None for a wrong, revoked or replaced one,
    and for a disabled reviewer's."""
    if not token.startswith(API_TOKEN_PREFIX):
        return None
    query = select(Reviewer).where(
        Reviewer.api_token_hash == _token_hash(token), Reviewer.active.is_(True)
    )
    with use_session(source) as session:
        return session.scalars(query).one_or_none()
