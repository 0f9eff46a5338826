"""A reviewer's standing, as a decision and an effect read it: who, which tenant, which
roles, active or not.

Design note. Every `decide` update reads its reviewer (`verify_decision`), and every
effect reads each approver again in its own transaction (`approvers.py`): both sit on
the path from a decision to its effect, which a reviewer waits on. They need four
columns, not an account: loading a whole `Reviewer` through the ORM, and building its
query anew each time, cost more than the read itself. So the statements are built once
here, with bound parameters (SQLAlchemy then reuses their compiled form), and the row
comes back as a small frozen value. Accounts are read and changed through the ORM
elsewhere (`reviewers.py`, `reviewer_accounts.py`); the rules on a standing (active,
tenant, role) are the callers'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Row, bindparam, select

from activities.store.database import table_of
from activities.store.reviewer_names import reviewer_name_key
from activities.store.schema import Reviewer
from activities.store.text_lists import split_list

REVIEWERS = table_of(Reviewer)
_STANDING = (REVIEWERS.c.id, REVIEWERS.c.tenant_id, REVIEWERS.c.roles, REVIEWERS.c.active)
BY_NAME_KEY = select(*_STANDING).where(REVIEWERS.c.name_key == bindparam("name_key"))
BY_ID = select(*_STANDING).where(REVIEWERS.c.id == bindparam("reviewer_id"))


@dataclass(frozen=True)
class Standing:
    id: str
    tenant_id: str
    role_list: list[str]
    active: bool


def standing_by_name(connection: Connection, name: str) -> Standing | None:
    """The reviewer whose name is `name` up to case and Unicode form (`reviewer_names.py`),
    disabled or not."""
    row = connection.execute(BY_NAME_KEY, {"name_key": reviewer_name_key(name)}).one_or_none()
    return None if row is None else _standing(row)


def standing_by_id(connection: Connection, reviewer_id: str) -> Standing | None:
    """The reviewer with exactly this id, disabled or not."""
    row = connection.execute(BY_ID, {"reviewer_id": reviewer_id}).one_or_none()
    return None if row is None else _standing(row)


def _standing(row: Row[Any, Any, Any, Any]) -> Standing:
    return Standing(row.id, row.tenant_id, split_list(row.roles), bool(row.active))
