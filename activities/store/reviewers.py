"""Reviewers: who may decide on pending actions, for which tenant, with which roles.

A reviewer's tenant and roles are read here, never taken from a command line or a form:
the decision that reaches the workflow carries what the store says. Names are found by
their normalized key (reviewer_names.py): `ALICE` finds `alice`, and cannot be added
beside her.
"""

from __future__ import annotations

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from activities.store.database import use_session, write_transaction
from activities.store.errors import StoreError, UnknownTenant
from activities.store.passwords import hash_password
from activities.store.reviewer_names import reviewer_name_key
from activities.store.schema import Reviewer, Tenant, join_list
from activities.store.ui_sessions import end_sessions_of


class ReviewerExists(StoreError):
    def __init__(self, reviewer_id: str, existing_id: str | None = None) -> None:
        existing = existing_id or reviewer_id
        same = "" if existing == reviewer_id else f" as '{existing}' (names ignore case)"
        super().__init__(
            f"Reviewer '{reviewer_id}' exists already{same}. Change the password with "
            f"`signoff user passwd {existing}`."
        )


class UnknownReviewer(StoreError):
    def __init__(self, reviewer_id: str) -> None:
        super().__init__(
            f"Reviewer '{reviewer_id}' does not exist. Create it with `signoff user add`."
        )


def get_reviewer(source: Session | Engine, name: str) -> Reviewer | None:
    """The reviewer whose name is `name` up to case and Unicode form, disabled or not."""
    with use_session(source) as session:
        return find_reviewer(session, name)


def find_reviewer(session: Session, name: str) -> Reviewer | None:
    query = select(Reviewer).where(Reviewer.name_key == reviewer_name_key(name))
    return session.scalars(query).one_or_none()


def require_reviewer(session: Session, name: str) -> Reviewer:
    reviewer = find_reviewer(session, name)
    if reviewer is None:
        raise UnknownReviewer(name)
    return reviewer


def add_reviewer(
    engine: Engine,
    reviewer_id: str,
    tenant_id: str,
    roles: list[str],
    password: str | None,
    display_name: str | None = None,
) -> Reviewer:
    """Create a reviewer; raises ReviewerExists, UnknownTenant or WeakPassword."""
    password_hash = hash_password(password) if password is not None else None
    try:
        with write_transaction(engine) as session:
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
    except IntegrityError:  # added at the same moment by another process: the key is unique
        raise ReviewerExists(reviewer_id) from None
    return reviewer


def set_password(engine: Engine, reviewer_id: str, password: str) -> None:
    """Replace the password and end the reviewer's sessions; raises UnknownReviewer or
    WeakPassword."""
    password_hash = hash_password(password)
    with write_transaction(engine) as session:
        reviewer = require_reviewer(session, reviewer_id)
        reviewer.password_hash = password_hash
        end_sessions_of(session, reviewer.id)
