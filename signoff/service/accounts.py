"""Reviewer accounts, for every face: who is signing in or deciding, and the changes an
administrator makes (add, password, roles, enable or disable, API tokens, sessions).

`password_holder` is the one password check: the reviewer UI's sign-in and the CLI's
`approve`/`reject` both ask it, so both spend the same (slow, argon2) work whether or not
the name exists, and neither tells a guesser which names do.
"""

from __future__ import annotations

from sqlalchemy import Engine

from activities.store import (
    Reviewer,
    StoreError,
    WeakPassword,
    add_reviewer,
    change_roles,
    end_session,
    get_reviewer,
    issue_token,
    reviewer_name_key,
    revoke_token,
    session_reviewer,
    set_active,
    set_password,
    start_session,
    token_reviewer,
    verify_password,
)

__all__ = [
    "Reviewer",
    "StoreError",
    "WeakPassword",
    "add_reviewer",
    "change_roles",
    "end_session",
    "get_reviewer",
    "issue_token",
    "password_holder",
    "revoke_token",
    "reviewer_name_key",
    "session_reviewer",
    "set_active",
    "set_password",
    "start_session",
    "token_reviewer",
]


def password_holder(engine: Engine, name: str, password: str) -> Reviewer | None:
    """The reviewer named `name` if `password` is theirs; None for a wrong password, an
    unknown name or an account without a password alike. Active or not is the caller's
    to say, after the password proved who asks."""
    reviewer = get_reviewer(engine, name)
    stored_hash = reviewer.password_hash if reviewer is not None else None
    # Verified even for an unknown name (against no hash): the same work either way.
    if not verify_password(password, stored_hash) or reviewer is None:
        return None
    return reviewer
