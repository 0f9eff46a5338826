"""Reviewers: who may decide on pending actions, for which tenant, with which roles.

A reviewer's tenant and roles are read here, never taken from a command line or a form:
the decision that reaches the workflow carries what the store says.
"""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.store.database import use_session
from activities.store.schema import Reviewer


def get_reviewer(source: Session | Engine, reviewer_id: str) -> Reviewer | None:
    with use_session(source) as session:
        return session.get(Reviewer, reviewer_id)
