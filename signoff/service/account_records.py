"""What an administrator's commands get back about an account and its API tokens: plain
frozen records, read from the store's rows inside the service, so that no row (and no
password or token hash) reaches a face. The changes themselves are `accounts.py`'s."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from activities.store import Credential, UnknownReviewer
from activities.store.account_schema import ApiToken
from activities.store.schema import Reviewer
from signoff.service.accounts import (
    add_reviewer,
    change_roles,
    get_reviewer,
    issue_token,
    listed_tokens,
    revoke_token,
    set_active,
    set_password,
)
from signoff.service.store import Store


@dataclass(frozen=True)
class AccountRecord:
    id: str
    tenant_id: str
    active: bool
    roles: tuple[str, ...]


@dataclass(frozen=True)
class TokenRecord:
    id: int
    reviewer_id: str
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None


@dataclass(frozen=True)
class IssuedToken:
    reviewer_id: str
    record: TokenRecord
    token: str  # shown once: only its hash is kept


def _account(row: Reviewer) -> AccountRecord:
    return AccountRecord(row.id, row.tenant_id, row.active, tuple(row.role_list))


def _token(row: ApiToken) -> TokenRecord:
    return TokenRecord(row.id, row.reviewer_id, row.created_at, row.expires_at, row.revoked_at)


def existing_account(store: Store, name: str) -> AccountRecord:
    """The reviewer with this id or name; raises UnknownReviewer."""
    row = get_reviewer(store, name)
    if row is None:
        raise UnknownReviewer(name)
    return _account(row)


def add_account(
    store: Store,
    admin: Credential | None,
    name: str,
    tenant: str,
    roles: list[str],
    password: str | None,
    display_name: str | None = None,
) -> AccountRecord:
    """`accounts.add_reviewer`: a reviewer who can sign in to the reviewer UI."""
    return _account(add_reviewer(store, admin, name, tenant, roles, password, display_name))


def set_account_password(
    store: Store, admin: Credential | None, name: str, password: str
) -> AccountRecord:
    """`accounts.set_password`: their sessions end and their API tokens are revoked."""
    return _account(set_password(store, admin, name, password))


def set_account_active(
    store: Store, admin: Credential | None, name: str, active: bool
) -> AccountRecord:
    """`accounts.set_active`: disabling ends every session and revokes every token."""
    return _account(set_active(store, admin, name, active))


def change_account_roles(
    store: Store, admin: Credential | None, name: str, add: list[str], remove: list[str]
) -> AccountRecord:
    return _account(change_roles(store, admin, name, add, remove))


def issue_account_token(
    store: Store, admin: Credential | None, name: str, lifetime: timedelta
) -> IssuedToken:
    reviewer, row, token = issue_token(store, admin, name, lifetime)
    return IssuedToken(reviewer.id, _token(row), token)


def revoke_account_token(store: Store, admin: Credential | None, token_id: int) -> TokenRecord:
    return _token(revoke_token(store, admin, token_id))


def account_tokens(store: Store, admin: Credential | None, name: str) -> list[TokenRecord]:
    """Every API token the reviewer was issued, for an administrator; raises
    NotAdministrator (the refusal on the audit) or UnknownReviewer."""
    return [_token(row) for row in listed_tokens(store, admin, name)]
