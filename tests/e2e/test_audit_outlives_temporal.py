"""The audit is the store's: decide refunds on one `signoff dev`, replace it with a fresh
one (a new Temporal database, the same SIGNOFF_DATABASE_URL), and every decision is still
listed, by the CLI and by the API; then a row edited by hand makes `signoff audit verify`
fail, naming it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from activities.store import demo_password, make_engine, write_transaction
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.wiring.local_stack import signoff_dev_stack
from tests.e2e.cli import eventually, json_of, signoff, signoff_at_once

pytestmark = pytest.mark.devserver
POLL_SECONDS = 60


def audit_of(env: dict[str, str]) -> list[dict[str, Any]]:
    listed = signoff(env, "audit", "list", "--tenant", "demo", "--limit", "1000", "--json")
    assert listed.returncode == 0, listed.stderr
    items: list[dict[str, Any]] = json_of(listed)["items"]
    return items


def decide_two_refunds(env: dict[str, str]) -> tuple[str, str]:
    """One approved (T-1042), one rejected (T-2210); returns their run ids once completed."""
    started = signoff_at_once(
        env,
        ["run", "--ticket", "T-1042", "--request-id", "outlive-approve", "--json"],
        ["run", "--ticket", "T-2210", "--request-id", "outlive-reject", "--json"],
    )
    approve_run, reject_run = (json_of(result)["run_id"] for result in started)
    rows = eventually(
        lambda: {row["run_id"]: row for row in json_of(signoff(env, "pending", "--json"))["items"]},
        lambda rows: {approve_run, reject_run} <= set(rows),
        "listing both runs as pending",
        within=POLL_SECONDS,
    )
    approved, rejected = signoff_at_once(
        env,
        [
            "approve",
            approve_run,
            "--hash",
            rows[approve_run]["action_hash"],
            "--as",
            "alice",
            "--password-stdin",
        ],
        [
            "reject",
            reject_run,
            "--hash",
            rows[reject_run]["action_hash"],
            "--as",
            "bob",
            "--reason",
            "no photo",
            "--category",
            "needs_more_information",
            "--password-stdin",
        ],
        inputs=[demo_password("alice") + "\n", demo_password("bob") + "\n"],
    )
    assert approved.returncode == 0 and rejected.returncode == 0, approved.stderr + rejected.stderr
    eventually(
        lambda: [
            json_of(signoff(env, "status", run, "--json")) for run in (approve_run, reject_run)
        ],
        lambda both: all(status["status"] == "completed" for status in both),
        "completing both runs",
        within=POLL_SECONDS,
    )
    return approve_run, reject_run


def test_the_audit_outlives_a_replaced_temporal_server(tmp_path: Path) -> None:
    store_url = f"sqlite:///{tmp_path / 'store' / 'signoff.db'}"
    queue = f"outlive-{os.getpid()}"
    first_home, second_home = tmp_path / "first", tmp_path / "second"
    first_home.mkdir()
    second_home.mkdir()

    with signoff_dev_stack(first_home, task_queue=queue, SIGNOFF_DATABASE_URL=store_url) as (
        env,
        _,
    ):
        approve_run, reject_run = decide_two_refunds(env)
        before = audit_of(env)
    decided = {(item["run_id"], item["kind"], item["reviewer_id"]) for item in before}
    assert decided == {
        (approve_run, "approved", "alice"),
        (approve_run, "executed", None),
        (reject_run, "rejected", "bob"),
    }
    assert (first_home / "temporal.db").exists()
    # The decision service keeps its key ring across the move (a new Temporal, not a new
    # decision service): `audit verify` checks the first stack's signatures with it.
    for path in ("signing_keys_path", "public_keys_path"):
        source = getattr(Settings(home=first_home), path)
        target = getattr(Settings(home=second_home), path)
        shutil.copy2(source, target)

    with signoff_dev_stack(second_home, task_queue=queue, SIGNOFF_DATABASE_URL=store_url) as (
        env,
        _,
    ):
        # A fresh Temporal: it has never heard of the runs.
        assert signoff(env, "status", approve_run, "--json").returncode != 0
        assert audit_of(env) == before
        settings = Settings(
            home=second_home,
            database_url=store_url,
            temporal_address=env["SIGNOFF_TEMPORAL_ADDRESS"],
            task_queue=queue,
            auth="proxy",
            ui_secret=None,
        )
        with TestClient(create_app(settings)) as ui:
            answer = ui.get("/api/audit", headers={"X-Forwarded-User": "alice"})
        assert answer.status_code == 200, answer.text
        api_ids = [item["id"] for item in answer.json()["items"]]
        assert api_ids == [item["id"] for item in before]

        intact = signoff(env, "audit", "verify")
        assert intact.returncode == 0 and "audit intact" in intact.stdout, intact.stderr
        [rejection] = [item for item in before if item["kind"] == "rejected"]
        store = make_engine(store_url)
        try:
            with write_transaction(store) as session:
                session.execute(
                    text("UPDATE decisions SET reason = 'photos were fine' WHERE id = :id"),
                    {"id": rejection["id"]},
                )
        finally:
            store.dispose()
        broken = signoff(env, "audit", "verify")
    assert broken.returncode == 1, broken.stdout
    assert f"tenant demo, row id {rejection['id']} (seq {rejection['seq']}" in broken.stderr
    assert "the row was altered" in broken.stderr
