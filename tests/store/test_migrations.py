"""Schema migrations on SQLite and PostgreSQL: an empty database gets every revision, a
store made by `create_all` before migrations is adopted (then gets the revisions after
the first), and a database migrated by a newer signoff is refused, untouched."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, create_engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from activities.store import get_reviewer, make_engine, seed_demo
from activities.store.database import writer
from activities.store.migrations.baseline import baseline_metadata
from activities.store.schema import Base
from activities.store.schema_migrations import (
    BASELINE_REVISION,
    MIGRATIONS,
    SchemaMismatch,
    SchemaTooNew,
    current_revision,
    head_revision,
    migrate,
)
from activities.store.schema_revision import HEAD_REVISION, at_head
from tests.store.conftest import BACKENDS

STARTING_TOGETHER = 4
EXTRA_REVISION = '''
"""A revision after the first, for the test only."""
from alembic import op
import sqlalchemy as sa

revision = "0002test"
down_revision = "{down}"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tenants", sa.Column("note", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("tenants", "note")
'''


@pytest.fixture(params=BACKENDS)
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty database on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    url = make_url(request.getfixturevalue("postgres_url"))
    name = f"migrations_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(
        host=url.host, port=url.port, user=url.username, dbname="postgres", autocommit=True
    ) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    return url.set(database=name).render_as_string(hide_password=False)


@pytest.fixture
def raw(empty_url: str) -> Iterator[Engine]:
    """A plain engine on the database: no migration runs through it."""
    engine = create_engine(empty_url)
    yield engine
    engine.dispose()


def legacy_store(raw: Engine) -> None:
    """A store as `make_engine` made it before migrations: `create_all` of the tables of
    that day (revision 0001's), then data."""
    baseline_metadata().create_all(raw)
    seed_demo(raw)


def schema_of(engine: Engine) -> dict[str, Any]:
    inspector = inspect(engine)
    return {
        table: {
            "columns": [
                (column["name"], str(column["type"]), column["nullable"])
                for column in inspector.get_columns(table)
            ],
            "primary_key": inspector.get_pk_constraint(table)["constrained_columns"],
            "foreign_keys": sorted(
                (tuple(fk["constrained_columns"]), fk["referred_table"])
                for fk in inspector.get_foreign_keys(table)
            ),
            "indexes": sorted(
                (index["name"], tuple(index["column_names"]), bool(index["unique"]))
                for index in inspector.get_indexes(table)
            ),
            "unique": sorted(
                tuple(unique["column_names"]) for unique in inspector.get_unique_constraints(table)
            ),
        }
        for table in sorted(inspector.get_table_names())
        if table != "alembic_version"
    }


def test_the_revision_read_without_alembic_is_alembics_head(empty_url: str) -> None:
    """make_engine skips Alembic when the store says HEAD_REVISION: it must be the head."""
    assert HEAD_REVISION == head_revision()
    engine = make_engine(empty_url)
    try:
        assert at_head(engine)
        with engine.begin() as connection:  # as an older signoff left it
            connection.execute(text("UPDATE alembic_version SET version_num = '0002'"))
        assert not at_head(engine)  # so make_engine hands it to Alembic
    finally:
        engine.dispose()


def test_an_empty_database_gets_every_revision(empty_url: str, raw: Engine) -> None:
    engine = make_engine(empty_url)
    try:
        assert current_revision(engine) == head_revision()
        seed_demo(engine)
        assert get_reviewer(engine, "alice") is not None
    finally:
        engine.dispose()


def test_the_revisions_make_the_schema_the_models_describe(
    empty_url: str, raw: Engine, tmp_path: Path
) -> None:
    """A change to `schema.py` without its revision fails here."""
    make_engine(empty_url).dispose()
    migrated = schema_of(raw)
    if raw.dialect.name == "sqlite":
        reference = create_engine(f"sqlite:///{tmp_path / 'create_all.db'}")
    else:
        Base.metadata.drop_all(raw)  # the same database, made by the models this time
        with raw.begin() as connection:
            connection.execute(text("DROP TABLE alembic_version"))
        reference = raw
    Base.metadata.create_all(reference)
    assert migrated == schema_of(reference)
    reference.dispose()


def test_on_postgresql_the_audit_stays_append_only(empty_url: str, raw: Engine) -> None:
    if raw.dialect.name != "postgresql":
        pytest.skip("the trigger is PostgreSQL's; SQLite has the hash chain alone")
    make_engine(empty_url).dispose()
    with raw.begin() as connection:
        triggers = connection.execute(
            text(
                "SELECT tgname FROM pg_trigger "
                "WHERE tgrelid = 'decisions'::regclass AND NOT tgisinternal"
            )
        ).scalars()
        assert set(triggers) == {"decisions_append_only", "decisions_no_truncate"}
        # The statement trigger fires on an empty table too (the row one needs a row).
        with pytest.raises(DBAPIError, match="append-only"):
            connection.execute(text("TRUNCATE decisions"))


def test_a_store_from_before_migrations_is_adopted_with_its_data(
    empty_url: str, raw: Engine
) -> None:
    legacy_store(raw)
    assert not inspect(raw).has_table("alembic_version")
    engine = make_engine(empty_url)
    try:
        # Stamped as the first revision, then brought to the head.
        assert current_revision(engine) == head_revision() != BASELINE_REVISION
        assert inspect(raw).has_table("waiting_actions")
        alice = get_reviewer(engine, "alice")
        assert alice is not None and alice.active
    finally:
        engine.dispose()


def test_an_adopted_store_gets_the_revisions_after_the_first(
    empty_url: str, raw: Engine, tmp_path: Path
) -> None:
    legacy_store(raw)
    location = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS, location)
    (location / "versions" / "0002_test.py").write_text(EXTRA_REVISION.format(down=head_revision()))
    migrate(raw, writer(raw), str(location))

    assert current_revision(raw) == "0002test"
    assert "note" in {column["name"] for column in inspect(raw).get_columns("tenants")}
    with raw.connect() as connection:  # the rows are still there
        assert connection.execute(text("SELECT count(*) FROM reviewers")).scalar_one() == 5


def test_a_store_that_does_not_match_is_refused_untouched(empty_url: str, raw: Engine) -> None:
    legacy_store(raw)
    with raw.begin() as connection:
        connection.execute(text("ALTER TABLE orders ADD COLUMN notes TEXT"))
    with pytest.raises(SchemaMismatch, match=r"orders has unknown columns \['notes'\]"):
        make_engine(empty_url)
    assert not inspect(raw).has_table("alembic_version")


def test_a_store_migrated_by_a_newer_signoff_is_refused_untouched(
    empty_url: str, raw: Engine
) -> None:
    make_engine(empty_url).dispose()
    with raw.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999future'"))
    before = schema_of(raw)

    with pytest.raises(SchemaTooNew) as refused:
        make_engine(empty_url)

    message = str(refused.value)
    assert "revision 9999future" in message and f"up to {head_revision()}" in message
    assert "Upgrade signoff" in message
    assert schema_of(raw) == before
    assert current_revision(raw) == "9999future"


def test_a_store_at_an_older_revision_gets_the_rest(
    empty_url: str, raw: Engine, tmp_path: Path
) -> None:
    make_engine(empty_url).dispose()  # at today's head, which a newer signoff follows
    location = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS, location)
    (location / "versions" / "0002_test.py").write_text(EXTRA_REVISION.format(down=head_revision()))
    migrate(raw, writer(raw), str(location))

    assert current_revision(raw) == "0002test"
    assert "note" in {column["name"] for column in inspect(raw).get_columns("tenants")}


def test_processes_starting_together_migrate_one_after_the_other(
    empty_url: str, raw: Engine
) -> None:
    """A worker, the UI and a command opening an empty store at once: one migrates, the
    others wait for it and find the store at the head."""
    with ThreadPoolExecutor(max_workers=STARTING_TOGETHER) as pool:
        engines = list(pool.map(lambda _: make_engine(empty_url), range(STARTING_TOGETHER)))
    for engine in engines:
        assert current_revision(engine) == head_revision()
        engine.dispose()
    with raw.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM alembic_version")).scalar_one() == 1
