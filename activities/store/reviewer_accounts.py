"""What an administrator changes on a reviewer: add, password, roles, enable or
disable (API tokens: token_admin.py). Each takes the administrator's credential and goes through
`account_admin.administer` (proof, change and audit row in one transaction).

Every change is read on the reviewer's next request (the UI reads the reviewer from the
store each time), so none needs a restart. A new password and a disable end the
reviewer's sessions and revoke their API tokens in the same transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from activities.store.account_admin import (
    ADMIN_ROLE,
    Changed,
    NotAdministrator,
    administer,
    administered,
    administrators,
    keep_an_administrator,
    lock_bootstrap,
)
from activities.store.account_audit import append_account_event
from activities.store.api_tokens import revoke_all_of
from activities.store.credentials import Credential
from activities.store.database import write_transaction
from activities.store.errors import StoreError, UnknownTenant
from activities.store.passwords import hash_password
from activities.store.reviewers import ReviewerExists, find_reviewer, require_reviewer
from activities.store.schema import Reviewer, Tenant
from activities.store.text_lists import join_list
from activities.store.ui_sessions import end_sessions_of


class FirstAccountNotAdministrator(StoreError):
    def __init__(self) -> None:
        super().__init__(
            "No administrator exists yet: the first account must be one. Add it with "
            f"`signoff user add NAME --tenant T --role {ADMIN_ROLE}`. Nothing was changed."
        )


def add_reviewer(
    engine: Engine,
    admin: Credential | None,
    reviewer_id: str,
    tenant_id: str,
    roles: list[str],
    password: str | None,
    display_name: str | None = None,
    now: datetime | None = None,
) -> Reviewer:
    """Create a reviewer; raises NotAdministrator, ReviewerExists, UnknownTenant,
    WeakPassword, or FirstAccountNotAdministrator (the bootstrap without `admin`).
    Without `admin`, only the bootstrap is allowed (see account_admin.py)."""
    password_hash = hash_password(password) if password is not None else None
    now = now or datetime.now(UTC)

    def create(session: Session) -> Reviewer:
        if session.get(Tenant, tenant_id) is None:
            raise UnknownTenant(tenant_id)
        existing = find_reviewer(session, reviewer_id)
        if existing is not None:
            raise ReviewerExists(reviewer_id, existing.id)
        reviewer = Reviewer(
            id=reviewer_id,
            tenant_id=tenant_id,
            display_name=display_name or reviewer_id,
            roles=join_list(roles),
            password_hash=password_hash,
        )
        session.add(reviewer)
        session.flush()
        return reviewer

    what = f"user add {reviewer_id}: tenant {tenant_id}, roles {', '.join(roles) or 'none'}"
    try:
        if admin is None:
            return _bootstrap(engine, reviewer_id, tenant_id, roles, what, create, now)
        return administered(
            engine,
            admin,
            f"user add {reviewer_id}",
            lambda session, _acting, _now: Changed(create(session), tenant_id, what),
            tenant_id=tenant_id,
            now=now,
        )
    except IntegrityError:  # added at the same moment by another process: the key is unique
        raise ReviewerExists(reviewer_id) from None


def _bootstrap(
    engine: Engine,
    reviewer_id: str,
    tenant_id: str,
    roles: list[str],
    what: str,
    create: Callable[[Session], Reviewer],
    now: datetime,
) -> Reviewer:
    refusal: NotAdministrator | None = None
    with write_transaction(engine) as session:
        lock_bootstrap(session)
        if administrators(session, active_only=False):
            # Closed: the attempt goes on the record like any other without a credential.
            refusal = administer(
                session, None, f"user add {reviewer_id}", _never, now, tenant_id=tenant_id
            )
        else:
            if ADMIN_ROLE not in roles:
                raise FirstAccountNotAdministrator()
            reviewer = create(session)
            append_account_event(
                session,
                tenant_id,
                reviewer_id,
                f"bootstrap, without a credential (no administrator existed): {what}",
                now,
            )
            return reviewer
    assert isinstance(refusal, NotAdministrator)
    raise refusal


def _never(_acting: Reviewer) -> Changed[None]:
    raise AssertionError("administer made a change without a credential")


def set_password(
    engine: Engine, admin: Credential | None, name: str, password: str, now: datetime | None = None
) -> Reviewer:
    """Replace the password, end the reviewer's sessions and revoke their API tokens;
    raises NotAdministrator, UnknownReviewer or WeakPassword."""
    password_hash = hash_password(password)

    def change(session: Session, _acting: Reviewer, at: datetime) -> Changed[Reviewer]:
        reviewer = require_reviewer(session, name)
        reviewer.password_hash = password_hash
        ended = _sign_out(session, reviewer, at)
        return Changed(reviewer, reviewer.tenant_id, f"user passwd {reviewer.id}: {ended}")

    return administered(engine, admin, f"user passwd {name}", change, target=name, now=now)


def set_active(
    engine: Engine, admin: Credential | None, name: str, active: bool, now: datetime | None = None
) -> Reviewer:
    """Enable or disable; disabling ends every session and revokes every API token.
    Raises NotAdministrator, UnknownReviewer or LastAdministrator."""
    verb = "enable" if active else "disable"

    def change(session: Session, _acting: Reviewer, at: datetime) -> Changed[Reviewer]:
        reviewer = require_reviewer(session, name)
        keep_an_administrator(session, reviewer, stays_admin=active)
        reviewer.active = active
        what = f"user {verb} {reviewer.id}"
        if not active:
            what += f": {_sign_out(session, reviewer, at)}"
        return Changed(reviewer, reviewer.tenant_id, what)

    return administered(engine, admin, f"user {verb} {name}", change, target=name, now=now)


def change_roles(
    engine: Engine,
    admin: Credential | None,
    name: str,
    add: list[str],
    remove: list[str],
    now: datetime | None = None,
) -> Reviewer:
    """Add, then remove roles (a role named in both ends removed). Raises
    NotAdministrator, UnknownReviewer or LastAdministrator."""

    def change(session: Session, _acting: Reviewer, _at: datetime) -> Changed[Reviewer]:
        reviewer = require_reviewer(session, name)
        roles = reviewer.role_list
        roles.extend(role for role in add if role not in roles)
        roles = [role for role in roles if role not in remove]
        keep_an_administrator(session, reviewer, stays_admin=ADMIN_ROLE in roles)
        before = ", ".join(reviewer.role_list) or "none"
        reviewer.roles = join_list(roles)
        what = f"user roles {reviewer.id}: {before} -> {', '.join(roles) or 'none'}"
        return Changed(reviewer, reviewer.tenant_id, what)

    return administered(engine, admin, f"user roles {name}", change, target=name, now=now)


def _sign_out(session: Session, reviewer: Reviewer, now: datetime) -> str:
    sessions = end_sessions_of(session, reviewer.id)
    tokens = revoke_all_of(session, reviewer.id, now)
    return f"{sessions} session(s) ended, {tokens} API token(s) revoked"
