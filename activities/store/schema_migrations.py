"""The store's schema, brought to this code's revision at every start (Alembic, in code).

Design note. `make_engine` calls `migrate` before anything reads the store. Three cases:

- an empty database gets every revision, from the first;
- a database made before migrations (tables, no `alembic_version`: what `create_all`
  made) is adopted: what revision 0001 has and it lacks is created, reviewer columns
  added later (`reviewer_columns.py`) are added, and if each table then has the columns of revision
  0001 it is stamped 0001 and gets the revisions after it; if not, nothing changes and
  the error names the differences;
- a database at a revision this code does not know was migrated by a newer signoff:
  it is refused, untouched, with the revision found and what to do.

All of it runs in one writing transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: a
transaction-level advisory lock), so a worker and a command starting at once migrate
one after the other, and a failed revision leaves the database as it was. A store that
is already at the head costs one read of `alembic_version`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.script.revision import RevisionError
from alembic.util import CommandError
from sqlalchemy import Connection, Engine, inspect, text

from activities.store.errors import StoreError
from activities.store.migrations.baseline import baseline_metadata, create_baseline
from activities.store.reviewer_columns import upgrade_reviewer_columns

MIGRATIONS = str(Path(__file__).parent / "migrations")
BASELINE_REVISION = "0001"
# Any fixed number: the PostgreSQL advisory lock every migrating process takes.
MIGRATION_LOCK_KEY = 0x5_16_0FF


class SchemaTooNew(StoreError):
    def __init__(self, found: str, head: str) -> None:
        super().__init__(
            f"The store's schema is at revision {found}, which this version of signoff "
            f"does not know (it knows up to {head}): a newer signoff migrated it. Upgrade "
            "signoff to the version that migrated the store (on every worker and UI), or "
            "point SIGNOFF_DATABASE_URL at another database. Nothing was changed."
        )
        self.found = found


class SchemaMismatch(StoreError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__(
            "The store has tables but no migration record, and they do not match the "
            f"schema signoff started migrations from ({'; '.join(problems)}). Nothing was "
            "changed. Point SIGNOFF_DATABASE_URL at an empty database, or fix these "
            "tables by hand and start again."
        )


@cache
def _script(location: str) -> ScriptDirectory:
    return ScriptDirectory.from_config(_config(location))


def _config(location: str, connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", location)
    config.attributes["connection"] = connection
    return config


def current_revision(source: Engine | Connection) -> str | None:
    if isinstance(source, Engine):
        with source.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    return MigrationContext.configure(source).get_current_revision()


def head_revision(location: str = MIGRATIONS) -> str:
    head = _script(location).get_current_head()
    assert head is not None, f"no revisions in {location}"
    return head


def migrate(engine: Engine, writer: Engine, location: str = MIGRATIONS) -> None:
    """Brings the store to the head revision (see the module note). `writer`: the engine
    whose transactions write (database.writer); `location`: tests add revisions."""
    head = head_revision(location)
    if current_revision(engine) == head:  # the common case: no write lock taken
        return
    with writer.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})"))
        current = current_revision(connection)  # again, under the lock
        if current is not None and not _known(current, location):
            raise SchemaTooNew(current, head)
        if current is None and _has_tables(connection):
            _adopt(connection, location)
        command.upgrade(_config(location, connection), "head")


def _known(revision: str, location: str) -> bool:
    try:
        return _script(location).get_revision(revision) is not None
    except (CommandError, RevisionError):  # an id none of our revisions has
        return False


def _has_tables(connection: Connection) -> bool:
    baseline = set(baseline_metadata().tables)
    return bool(baseline & set(inspect(connection).get_table_names()))


def _adopt(connection: Connection, location: str) -> None:
    """A store made by `create_all` before migrations becomes revision 0001."""
    upgrade_reviewer_columns(connection)
    create_baseline(connection)
    problems = _differences(connection)
    if problems:
        raise SchemaMismatch(problems)
    command.stamp(_config(location, connection), BASELINE_REVISION)


def _differences(connection: Connection) -> list[str]:
    inspector = inspect(connection)
    problems = []
    for name, table in baseline_metadata().tables.items():
        present = {column["name"] for column in inspector.get_columns(name)}
        expected = {column.name for column in table.columns}
        if present - expected:
            problems.append(f"{name} has unknown columns {sorted(present - expected)}")
        if expected - present:
            problems.append(f"{name} lacks columns {sorted(expected - present)}")
    return problems
