"""The runtime role on a real PostgreSQL: it cannot rewrite the audit.

A database owned by an owner role is migrated as that role (`signoff store migrate`),
which grants the runtime role (the application's SIGNOFF_DATABASE_URL) exactly
`RUNTIME_PRIVILEGES`. Connected as the runtime role, the store works (seed, a refund
with its audit row, a decision, a sign-in), and every way to change the audit is
refused: UPDATE, DELETE, TRUNCATE, DROP TRIGGER, disabling the trigger, a chain
rewritten and rehashed, and DDL.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from datetime import timedelta

import psycopg
import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, ProgrammingError
from typer.testing import CliRunner

from activities.store import (
    get_reviewer,
    issue_token,
    revoke_token,
    seed_demo,
    set_active,
    token_reviewer,
    write_transaction,
)
from activities.store.database import make_engine
from activities.store.decision_chain import verify_chain
from activities.store.decisions import append_decision
from activities.store.errors import StoreNotMigrated
from activities.store.refunds import execute_refund
from activities.store.ui_sessions import end_session, start_session
from signoff.config.settings import Settings, get_settings
from signoff.service.handles import engine_of
from signoff.service.store import RuntimeRoleOwnsStore, close_store, migrate_store, open_store
from signoff.wiring.app import app
from tests.admin import ADMIN
from tests.store.chain_rewrite import rewrite_and_rehash
from tests.store.commands import refund_command
from tests.store.test_decision_chain import event

pytestmark = pytest.mark.postgres
OWNER, RUNTIME = "signoff_owner", "signoff_app"
DATABASES = itertools.count()


@pytest.fixture(scope="module")
def roles(postgres_url: str) -> str:
    url = make_url(postgres_url)
    with psycopg.connect(
        host=url.host, port=url.port, user=url.username, dbname="postgres", autocommit=True
    ) as admin:
        for role in (OWNER, RUNTIME):
            admin.execute(f"CREATE ROLE {role} LOGIN")
    return postgres_url


def database_of(roles: str, owner: str = OWNER) -> tuple[str, str]:
    """A new database owned by `owner`: (the owner's URL, the runtime role's URL)."""
    url = make_url(roles)
    name = f"signoff_roles_{next(DATABASES)}"
    with psycopg.connect(
        host=url.host, port=url.port, user=url.username, dbname="postgres", autocommit=True
    ) as admin:
        admin.execute(f"CREATE DATABASE {name} OWNER {owner}")
    database = url.set(database=name)
    return (
        database.set(username=owner).render_as_string(hide_password=False),
        database.set(username=RUNTIME).render_as_string(hide_password=False),
    )


def split_settings(owner_url: str, runtime_url: str) -> Settings:
    return Settings(
        database_url=runtime_url, migration_database_url=owner_url, migrate_at_start=False
    )


@pytest.fixture
def runtime(roles: str) -> Iterator[Engine]:
    """The store as the runtime role, after `migrate_store` as the owner."""
    settings = split_settings(*database_of(roles))
    report = migrate_store(settings)
    assert report.runtime_role == RUNTIME and report.grants["decisions"] == ("SELECT", "INSERT")
    store = open_store(settings)
    engine = engine_of(store)
    seed_demo(engine)  # the runtime role writes the demo data
    yield engine
    close_store(store)


def test_the_runtime_role_works_the_store(runtime: Engine) -> None:
    append_decision(runtime, event(0))
    result = execute_refund(
        runtime, refund_command(runtime, key="run-1/refund-1", amount_minor=1000)
    )
    assert result.status == "refunded"  # the ledger row and its audit row, one transaction
    reviewer = get_reviewer(runtime, "alice")
    session_id = start_session(runtime, "alice", reviewer.password_hash, timedelta(hours=1))
    assert session_id is not None
    end_session(runtime, session_id)
    report = verify_chain(runtime)
    assert report.intact and report.rows["demo"] == 2


def test_the_runtime_role_administers_accounts(runtime: Engine) -> None:
    """Tokens issued and revoked in place, a reviewer disabled (sessions and tokens end),
    each with its audit row: what `signoff user ...` does, as the application's role."""
    _, row, token = issue_token(runtime, ADMIN, "bob", timedelta(days=1))
    assert token_reviewer(runtime, token) is not None
    revoke_token(runtime, ADMIN, row.id)
    issue_token(runtime, ADMIN, "bob", timedelta(days=1))
    set_active(runtime, ADMIN, "bob", False)
    set_active(runtime, ADMIN, "bob", True)
    assert token_reviewer(runtime, token) is None
    report = verify_chain(runtime)
    assert report.intact and report.rows["demo"] == 5


@pytest.mark.parametrize(
    ("statement", "refusal"),
    [
        ("UPDATE decisions SET reason = 'all fine'", "permission denied for table decisions"),
        ("DELETE FROM decisions", "permission denied for table decisions"),
        ("TRUNCATE decisions", "permission denied for table decisions"),
        ("DROP TRIGGER decisions_append_only ON decisions", "must be owner of"),
        ("ALTER TABLE decisions DISABLE TRIGGER decisions_append_only", "must be owner of"),
        ("DROP TABLE decisions", "must be owner of"),
        ("CREATE TABLE decisions_copy (id integer)", "permission denied for schema public"),
        ("UPDATE refunds SET amount_minor = 1", "permission denied for table refunds"),
        ("SELECT setval('decisions_id_seq', 1)", "permission denied for sequence"),
    ],
)
def test_the_runtime_role_cannot_change_the_audit(
    runtime: Engine, statement: str, refusal: str
) -> None:
    append_decision(runtime, event(0))
    with pytest.raises(DBAPIError, match=refusal), write_transaction(runtime) as session:
        session.execute(text(statement))
    assert verify_chain(runtime).rows == {"demo": 1}


def test_the_runtime_role_cannot_rewrite_and_rehash_the_chain(runtime: Engine) -> None:
    for sequence in range(3):
        append_decision(runtime, event(sequence))
    before = verify_chain(runtime).heads
    with pytest.raises(ProgrammingError, match="must be owner of"):
        rewrite_and_rehash(runtime, "demo", 2, "refund was fine")
    assert verify_chain(runtime).heads == before


def test_the_runtime_role_does_not_migrate_and_says_what_to_do(roles: str) -> None:
    owner_url, runtime_url = database_of(roles)
    with pytest.raises(StoreNotMigrated, match="signoff store migrate"):
        open_store(split_settings(owner_url, runtime_url))
    make_engine(owner_url).dispose()  # migrated, but not granted: still refused
    with pytest.raises(StoreNotMigrated):
        open_store(split_settings(owner_url, runtime_url))


def test_a_runtime_role_that_owns_the_store_is_refused(roles: str) -> None:
    owner_url, _ = database_of(roles, owner=RUNTIME)
    with pytest.raises(RuntimeRoleOwnsStore, match="could drop its trigger"):
        migrate_store(split_settings(owner_url, owner_url))


def test_the_migrate_command_grants_the_runtime_role(
    roles: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner_url, runtime_url = database_of(roles)
    monkeypatch.setenv("SIGNOFF_DATABASE_URL", runtime_url)
    monkeypatch.setenv("SIGNOFF_MIGRATION_DATABASE_URL", owner_url)
    monkeypatch.setenv("SIGNOFF_MIGRATE_AT_START", "false")
    get_settings.cache_clear()
    answer = CliRunner().invoke(app, ["store", "migrate", "--json"])
    assert answer.exit_code == 0, answer.output
    report = json.loads(answer.stdout)
    assert report["runtime_role"] == RUNTIME and report["grants"]["decisions"] == [
        "SELECT",
        "INSERT",
    ]
    seeded = CliRunner().invoke(app, ["seed"])  # as the runtime role, no migration
    assert seeded.exit_code == 0, seeded.output
    get_settings.cache_clear()
