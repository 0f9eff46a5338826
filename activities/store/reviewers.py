"""Reviewers: who may decide on pending actions, for which tenant, with which roles.

A reviewer's tenant and roles are read here, never taken from a command line or a form:
the decision that reaches the workflow carries what the store says.
"""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.store.database import use_session, write_transaction
from activities.store.errors import StoreError, UnknownTenant
from activities.store.passwords import hash_password
from activities.store.schema import Reviewer, Tenant, join_list


class ReviewerExists(StoreError):
    def __init__(self, reviewer_id: str) -> None:
        super().__init__(
            f"Reviewer '{reviewer_id}' exists already. Change the password with "
            f"`signoff user passwd {reviewer_id}`."
        )


class UnknownReviewer(StoreError):
    def __init__(self, reviewer_id: str) -> None:
        super().__init__(
            f"Reviewer '{reviewer_id}' does not exist. Create it with `signoff user add`."
        )


def get_reviewer(source: Session | Engine, reviewer_id: str) -> Reviewer | None:
    with use_session(source) as session:
        return session.get(Reviewer, reviewer_id)


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
    with write_transaction(engine) as session:
        if session.get(Tenant, tenant_id) is None:
            raise UnknownTenant(tenant_id)
        if session.get(Reviewer, reviewer_id) is not None:
            raise ReviewerExists(reviewer_id)
        reviewer = Reviewer(
            id=reviewer_id,
            tenant_id=tenant_id,
            display_name=display_name or reviewer_id,
            roles=join_list(roles),
            password_hash=password_hash,
        )
        session.add(reviewer)
    return reviewer


def set_password(engine: Engine, reviewer_id: str, password: str) -> None:
    """Replace the password; raises UnknownReviewer or WeakPassword."""
    password_hash = hash_password(password)
    with write_transaction(engine) as session:
        reviewer = session.get(Reviewer, reviewer_id)
        if reviewer is None:
            raise UnknownReviewer(reviewer_id)
        reviewer.password_hash = password_hash
