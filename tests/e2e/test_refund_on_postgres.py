"""The whole refund path with the store on PostgreSQL: `signoff dev --postgres` (here
through SIGNOFF_DEV_POSTGRES) starts Debian's PostgreSQL under its home, migrates it as
the owner role and runs everything else as the runtime role,
seeds it; then run, pending, approve, the ledger row, status, as on SQLite.

Its own stack: the package's shared one runs on SQLite. Its home is under /tmp and
traversable, since as root the cluster runs as the `postgres` user (dev_postgres.py).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from activities.store import demo_password, list_refunds, make_engine
from activities.store.schema_migrations import current_revision, head_revision
from signoff.config.settings import Settings
from signoff.wiring.dev_postgres import database_url
from signoff.wiring.local_stack import free_port, signoff_dev_stack
from tests.e2e.cli import eventually, json_of, signoff
from tests.e2e.test_approvals_on_dev_server import pending_rows, replay_runs

pytestmark = [pytest.mark.devserver, pytest.mark.postgres]

POLL_SECONDS = 60


@pytest.fixture
def postgres_stack() -> Iterator[tuple[dict[str, str], Path]]:
    home = Path(tempfile.mkdtemp(prefix="signoff-dev-pg-"))
    home.chmod(0o755)
    port = str(free_port())
    url = f"postgresql+psycopg://signoff_app@127.0.0.1:{port}/signoff"
    try:
        with signoff_dev_stack(
            home,
            task_queue=f"e2e-pg-{os.getpid()}",
            SIGNOFF_DEV_POSTGRES="true",
            SIGNOFF_DEV_POSTGRES_PORT=port,
            # The commands in other terminals use the same store, as `signoff dev` says.
            SIGNOFF_DATABASE_URL=url,
        ) as (env, launcher):
            yield env, home
        assert launcher.returncode == 0, (home / "dev.log").read_text()
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_a_refund_from_run_to_ledger_on_postgresql(
    postgres_stack: tuple[dict[str, str], Path],
) -> None:
    env, home = postgres_stack
    said = (home / "dev.log").read_text()
    assert f"export SIGNOFF_DATABASE_URL={env['SIGNOFF_DATABASE_URL']}" in said
    assert env["SIGNOFF_DATABASE_URL"] == database_url_for(env)

    started = signoff(env, "run", "--ticket", "T-1042", "--request-id", "pg-1", "--json")
    assert started.returncode == 0, started.stderr
    run_id = json_of(started)["run_id"]
    rows = eventually(
        lambda: pending_rows(env),
        lambda rows: run_id in rows,
        "listing the run as pending",
        within=POLL_SECONDS,
    )
    pending = rows[run_id]
    assert (pending["order"], pending["amount"]) == ("C-1042", "89.90")

    approved = signoff(
        env,
        *("approve", run_id, "--hash", pending["action_hash"], "--as", "alice"),
        *("--password-stdin", "--json"),
        stdin=demo_password("alice") + "\n",
    )
    assert approved.returncode == 0, approved.stderr
    status = eventually(
        lambda: json_of(signoff(env, "status", run_id, "--json")),
        lambda status: status["status"] == "completed",
        "completing the run",
        within=POLL_SECONDS,
    )

    store = make_engine(env["SIGNOFF_DATABASE_URL"])
    try:
        assert current_revision(store) == head_revision()
        (row,) = list_refunds(store, "demo", "C-1042")
    finally:
        store.dispose()
    assert (row.amount, row.action_hash, row.approver_list, row.run_id) == (
        Decimal("89.90"),
        pending["action_hash"],
        ["alice"],
        run_id,
    )
    assert status["outcome"]["effects_performed"] == [
        f"refund 89.90 EUR on order C-1042 (refund {row.id})"
    ]
    # The stack ran as the runtime role, which cannot rewrite the audit; the owner
    # (migrations) owns it.
    with psycopg.connect(env["SIGNOFF_DATABASE_URL"].replace("+psycopg", "")) as runtime:
        assert runtime.execute("SELECT current_user").fetchone() == ("signoff_app",)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            runtime.execute("UPDATE decisions SET reason = 'rewritten'")
    owner_url = database_url(
        Settings(dev_postgres_port=int(env["SIGNOFF_DEV_POSTGRES_PORT"])), "signoff_owner"
    )
    with psycopg.connect(owner_url.replace("+psycopg", "")) as owner:
        [(table_owner,)] = owner.execute(
            "SELECT tableowner FROM pg_tables WHERE tablename = 'decisions'"
        ).fetchall()
    assert table_owner == "signoff_owner"
    # The store was PostgreSQL's alone: no SQLite file beside it.
    assert not (home / "signoff.db").exists()
    assert (home / "postgres" / "data" / "PG_VERSION").exists()
    asyncio.run(replay_runs(env, run_id))


def database_url_for(env: dict[str, str]) -> str:
    return database_url(Settings(dev_postgres_port=int(env["SIGNOFF_DEV_POSTGRES_PORT"])))
