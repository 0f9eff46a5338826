"""The administrator's check, made where an account changes: no face can skip it.

Design note. Every account change (`reviewer_accounts.py`) runs through `administer`,
which takes the administrator's credential, not a name, and proves it in the change's
own write transaction: the credential must prove an active reviewer holding the
`admin` role. Then the change is made and its audit row appended, together. A refused
attempt changes nothing, and its audit row (`account_refused`: who tried, what, why)
commits on its own, so the attempt is on the record.

The one exception is the bootstrap: while no reviewer holds `admin`, `user add NAME
--role admin` creates the first administrator without a credential, and its row says
so. Once an administrator exists that path is closed, and the last active
administrator cannot be disabled or lose the role, so it stays closed. (We read "an
empty store" as "a store without an administrator": a store seeded or used before
this change has reviewers but no administrator, and would otherwise be locked.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Generic, TypeVar

from sqlalchemy import Engine, select, text
from sqlalchemy.orm import Session

from activities.store.account_audit import append_account_event
from activities.store.credentials import Credential, prove
from activities.store.database import write_transaction
from activities.store.errors import StoreError
from activities.store.reviewers import find_reviewer
from activities.store.schema import Reviewer, Tenant
from activities.store.text_lists import split_list

ADMIN_ROLE = "admin"
# Any fixed number: the PostgreSQL advisory lock that serializes bootstraps.
BOOTSTRAP_LOCK_KEY = 0x5_16_0AD

T = TypeVar("T")


class NotAdministrator(StoreError):
    def __init__(self, why: str) -> None:
        super().__init__(
            f"{why} Account changes need an administrator's credential (`--as ADMIN`). "
            "Nothing was changed; the attempt is in the audit."
        )


class LastAdministrator(StoreError):
    def __init__(self, name: str) -> None:
        super().__init__(
            f"'{name}' is the last active administrator: grant `admin` to another "
            "reviewer first. Nothing was changed."
        )


@dataclass(frozen=True)
class Changed(Generic[T]):
    """What a change returns to `administer`: its result, and what the audit says."""

    result: T
    tenant_id: str
    what: str


def administer(
    session: Session,
    admin: Credential | None,
    attempt: str,
    change: Callable[[Reviewer], Changed[T]],
    now: datetime,
    *,
    target: str | None = None,
    tenant_id: str | None = None,
) -> T | NotAdministrator:
    """Inside the caller's write transaction: prove `admin`, then make the change and
    append its row; or append the refusal and return the error for the caller to raise
    once the refusal is committed. `attempt` names the attempt (`user token alice`);
    `target` and `tenant_id` say whose audit a refusal goes to."""
    why = "No credential was given." if admin is None else None
    acting: Reviewer | None = None
    if admin is not None:
        proof = prove(session, admin, now)
        acting = proof.reviewer
        if acting is None:
            why = proof.problem
        elif ADMIN_ROLE not in acting.role_list:
            why = f"'{acting.id}' is not an administrator (no `{ADMIN_ROLE}` role)."
    if why is None and acting is not None:
        changed = change(acting)
        append_account_event(session, changed.tenant_id, acting.id, changed.what, now)
        return changed.result
    refusal = NotAdministrator(why or "")
    claimed = admin.name if admin is not None else None
    tenant = _refusal_tenant(session, target, claimed, tenant_id)
    if tenant is not None:
        what = f"refused `{attempt}`: {why}"
        append_account_event(session, tenant, claimed, what, now, refused=True)
    return refusal


# A change, given the transaction, the proven administrator and the time.
Change = Callable[[Session, Reviewer, datetime], Changed[T]]


def administered(
    engine: Engine,
    admin: Credential | None,
    attempt: str,
    change: Change[T],
    *,
    target: str | None = None,
    tenant_id: str | None = None,
    now: datetime | None = None,
) -> T:
    """`administer` in a write transaction of its own; the refusal is raised once its
    audit row is committed."""
    now = now or datetime.now(UTC)
    with write_transaction(engine) as session:
        outcome = administer(
            session,
            admin,
            attempt,
            lambda acting: change(session, acting, now),
            now,
            target=target,
            tenant_id=tenant_id,
        )
    if isinstance(outcome, NotAdministrator):
        raise outcome  # after the commit: the refusal's audit row stays
    return outcome


def _refusal_tenant(
    session: Session, target: str | None, claimed: str | None, tenant_id: str | None
) -> str | None:
    """The target's tenant, else the claimed administrator's, else the one named if it
    exists; None when none exists (then there is no chain to write to)."""
    for name in (target, claimed):
        reviewer = find_reviewer(session, name) if name else None
        if reviewer is not None:
            return reviewer.tenant_id
    if tenant_id is not None and session.get(Tenant, tenant_id) is not None:
        return tenant_id
    return None


def administrators(session: Session, *, active_only: bool) -> list[str]:
    query = select(Reviewer.id, Reviewer.roles, Reviewer.active)
    return [
        reviewer_id
        for reviewer_id, roles, active in session.execute(query)
        if ADMIN_ROLE in split_list(roles) and (active or not active_only)
    ]


def lock_bootstrap(session: Session) -> None:
    """Two bootstraps at once on PostgreSQL: the second waits, then sees the first
    administrator. (SQLite's write transaction is one writer at a time already.)"""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": BOOTSTRAP_LOCK_KEY})


def keep_an_administrator(session: Session, reviewer: Reviewer, stays_admin: bool) -> None:
    """Raise LastAdministrator when this change would leave no active administrator."""
    if stays_admin or not reviewer.active or ADMIN_ROLE not in reviewer.role_list:
        return
    others = [name for name in administrators(session, active_only=True) if name != reviewer.id]
    if not others:
        raise LastAdministrator(reviewer.id)
