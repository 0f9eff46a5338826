"""The runtime role's privileges name every table the models have, and the audit is
append-only for it (tests/store/test_runtime_role.py grants them on PostgreSQL)."""

from __future__ import annotations

from activities.store.runtime_grants import RUNTIME_PRIVILEGES
from activities.store.schema import Base


def test_every_table_has_its_runtime_privileges() -> None:
    # A table added without an entry would get nothing: the runtime role could not use it.
    assert set(RUNTIME_PRIVILEGES) == {*Base.metadata.tables, "alembic_version"}
    assert RUNTIME_PRIVILEGES["decisions"] == ("SELECT", "INSERT")
    assert not any({"TRUNCATE", "TRIGGER"} & set(grants) for grants in RUNTIME_PRIVILEGES.values())
