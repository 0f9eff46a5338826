"""Reviewers, read: who may decide on pending actions, for which tenant, with which roles.

A reviewer's tenant and roles are read here, never taken from a command line or a form:
the decision that reaches the workflow carries what the store says. Names are found by
their normalized key (reviewer_names.py): `ALICE` finds `alice`, and cannot be added
beside her. Changes to accounts are in reviewer_accounts.py (an administrator's).
"""

from __future__ import annotations

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from activities.store.database import use_session
from activities.store.errors import StoreError
from activities.store.reviewer_names import reviewer_name_key
from activities.store.schema import Reviewer


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
