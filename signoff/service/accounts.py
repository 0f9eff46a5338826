"""Reviewer accounts, for every face: who is signing in or deciding, and the changes an
administrator makes (add, password, roles, enable or disable, API tokens, sessions).

Every change takes the administrator's `Credential`, which the store proves in the
change's own transaction (activities/store/account_admin.py): a face passes on what the
person typed and cannot skip the check. `password_holder` is the one password check of
the sign-in and of `approve`/`reject`: both spend the same (slow, argon2) work whether
or not the name exists, and neither tells a guesser which names do. `authenticated`
is the same for a password or a token, with the reason when it proves no one.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import activities.store as store_layer
from activities.store import (
    ADMIN_ROLE,
    Credential,
    FirstAccountNotAdministrator,
    LastAdministrator,
    NotAdministrator,
    Proof,
    Reviewer,
    StoreError,
    UnknownReviewer,
    UnknownToken,
    WeakPassword,
    prove,
    reviewer_name_key,
    use_session,
    verify_password,
)
from activities.store.credentials import CredentialKind
from signoff.config.settings import Settings
from signoff.service.handles import Store, engine_of, on_store

__all__ = [
    "ADMIN_ROLE",
    "Credential",
    "CredentialKind",
    "FirstAccountNotAdministrator",
    "LastAdministrator",
    "NotAdministrator",
    "Proof",
    "StoreError",
    "UnknownReviewer",
    "UnknownToken",
    "WeakPassword",
    "add_reviewer",
    "authenticated",
    "change_roles",
    "check_token",
    "end_session",
    "get_reviewer",
    "issue_token",
    "listed_tokens",
    "password_holder",
    "revoke_token",
    "revoke_tokens",
    "reviewer_name_key",
    "session_reviewer",
    "set_active",
    "set_password",
    "start_session",
    "token_lifetime",
    "token_reviewer",
    "tokens_of",
]

# The store layer's calls, each taking the face's Store (handles.py).
add_reviewer = on_store(store_layer.add_reviewer)
change_roles = on_store(store_layer.change_roles)
check_token = on_store(store_layer.check_token)
end_session = on_store(store_layer.end_session)
get_reviewer = on_store(store_layer.get_reviewer)
issue_token = on_store(store_layer.issue_token)
listed_tokens = on_store(store_layer.listed_tokens)
revoke_token = on_store(store_layer.revoke_token)
revoke_tokens = on_store(store_layer.revoke_tokens)
session_reviewer = on_store(store_layer.session_reviewer)
set_active = on_store(store_layer.set_active)
set_password = on_store(store_layer.set_password)
start_session = on_store(store_layer.start_session)
token_reviewer = on_store(store_layer.token_reviewer)
tokens_of = on_store(store_layer.tokens_of)


def password_holder(store: Store, name: str, password: str) -> Reviewer | None:
    """The reviewer named `name` if `password` is theirs; None for a wrong password, an
    unknown name or an account without a password alike. Active or not is the caller's
    to say, after the password proved who asks."""
    engine = engine_of(store)
    reviewer = store_layer.get_reviewer(engine, name)
    stored_hash = reviewer.password_hash if reviewer is not None else None
    # Verified even for an unknown name (against no hash): the same work either way.
    if not verify_password(password, stored_hash) or reviewer is None:
        return None
    return reviewer


def authenticated(store: Store, credential: Credential, now: datetime | None = None) -> Proof:
    """The active reviewer a password or an API token proves, or why it proves no one."""
    engine = engine_of(store)
    with use_session(engine) as session:
        return prove(session, credential, now or datetime.now(UTC))


def token_lifetime(settings: Settings) -> timedelta:
    return timedelta(days=settings.token_ttl_days)
