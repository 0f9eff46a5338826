"""deploy/postgres/roles.sh and temporal-dev.yml's signoff settings, on a real
PostgreSQL (Debian's, tests/postgres.py): the script makes the two roles and the
database as the image would on first start; the stack's `migrate` service, with the
file's own variables, migrates as signoff_owner; `seed`, as signoff_app, fills the
store twice; and signoff_app cannot change the audit. The cluster trusts local
connections, so the passwords are not what is tested here."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from typer.testing import CliRunner

from activities.store import write_transaction
from activities.store.database import make_engine
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from tests.deploy.compose_file import REPO_ROOT, resolved
from tests.postgres import postgres_bin_dir, postgres_cluster

pytestmark = pytest.mark.postgres
ROLES_SCRIPT = REPO_ROOT / "deploy" / "postgres" / "roles.sh"


@pytest.fixture
def cluster() -> Iterator[str]:
    with postgres_cluster() as url:
        yield url


def on_cluster(compose_url: str, cluster_url: str) -> str:
    """The stack's URL (its role, password and database) on the test cluster."""
    target = make_url(cluster_url)
    return (
        make_url(compose_url)
        .set(host=target.host, port=target.port)
        .render_as_string(hide_password=False)
    )


def test_the_stack_runs_signoff_as_a_role_that_cannot_rewrite_the_audit(
    cluster: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    database = make_url(cluster)
    stack = resolved()["services"]
    postgresql = stack["postgresql"]["environment"]
    made = subprocess.run(
        ["sh", str(ROLES_SCRIPT)],
        capture_output=True,
        text=True,
        check=False,
        env={
            **os.environ,
            "PATH": f"{postgres_bin_dir()}:{os.environ['PATH']}",
            "PGHOST": str(database.host),
            "PGPORT": str(database.port),
            "POSTGRES_USER": str(database.username),  # the cluster's superuser
            "SIGNOFF_OWNER_PASSWORD": postgresql["SIGNOFF_OWNER_PASSWORD"],
            "SIGNOFF_APP_PASSWORD": postgresql["SIGNOFF_APP_PASSWORD"],
        },
    )
    assert made.returncode == 0, made.stderr
    assert "signoff roles ready" in made.stdout

    migrate = stack["migrate"]["environment"]
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_MIGRATE_AT_START", migrate["SIGNOFF_MIGRATE_AT_START"])
    runtime_url = on_cluster(migrate["SIGNOFF_DATABASE_URL"], cluster)
    monkeypatch.setenv("SIGNOFF_DATABASE_URL", runtime_url)
    monkeypatch.setenv(
        "SIGNOFF_MIGRATION_DATABASE_URL",
        on_cluster(migrate["SIGNOFF_MIGRATION_DATABASE_URL"], cluster),
    )
    get_settings.cache_clear()
    migrated = CliRunner().invoke(app, ["store", "migrate", "--json"])
    assert migrated.exit_code == 0, migrated.output
    assert json.loads(migrated.stdout)["runtime_role"] == "signoff_app"

    monkeypatch.delenv("SIGNOFF_MIGRATION_DATABASE_URL")  # as the seed service runs
    get_settings.cache_clear()
    for _ in range(2):  # `up` again reseeds: safe to repeat, as the runtime role
        seeded = CliRunner().invoke(app, ["seed"])
        assert seeded.exit_code == 0, seeded.output
    get_settings.cache_clear()

    engine = make_engine(runtime_url, migrate=False)
    try:
        for statement in (
            "UPDATE decisions SET reason = ''",
            "DROP TRIGGER decisions_append_only ON decisions",
        ):
            with pytest.raises(DBAPIError), write_transaction(engine) as session:
                session.execute(text(statement))
        with write_transaction(engine) as session:
            superuser = session.execute(
                text("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
            ).scalar_one()
        assert superuser is False
    finally:
        engine.dispose()
