"""`signoff audit verify` and `signoff audit list` on a real SQLite store, no Temporal:
exit 0 on an intact chain, 1 naming the row edited by hand, 2 for an unknown tenant."""

from __future__ import annotations

import json

from sqlalchemy import Engine, text
from typer.testing import CliRunner

from activities.store import write_transaction
from signoff.wiring.app import app


def test_verify_says_intact_then_names_the_edited_row(audited_store: Engine) -> None:
    cli = CliRunner()
    intact = cli.invoke(app, ["audit", "verify"])
    assert intact.exit_code == 0, intact.output
    assert "audit intact: 2 decision(s) in 1 tenant chain(s) (demo: 2)" in intact.stdout
    listed = json.loads(cli.invoke(app, ["audit", "list", "--tenant", "demo", "--json"]).stdout)
    assert listed["total"] == 2
    assert [item["kind"] for item in listed["items"]] == ["rejected", "approved"]
    first_id = listed["items"][1]["id"]

    with write_transaction(audited_store) as session:
        session.execute(text(f"UPDATE decisions SET reviewer_id = 'mallory' WHERE id = {first_id}"))
    broken = cli.invoke(app, ["audit", "verify"])
    assert broken.exit_code == 1
    assert f"tenant demo, row id {first_id} (seq 1, decided 2026-11-30 10:00:00 UTC)" in (
        broken.stderr
    )
    assert "the row was altered" in broken.stderr
    report = json.loads(cli.invoke(app, ["audit", "verify", "--json"]).stdout)
    assert report["intact"] is False and report["broken"][0]["row_id"] == first_id


def test_an_unknown_tenant_is_bad_input(audited_store: Engine) -> None:
    answer = CliRunner().invoke(app, ["audit", "verify", "--tenant", "nobody"])
    assert answer.exit_code == 2 and "Tenant 'nobody' does not exist" in answer.stderr
    empty = CliRunner().invoke(app, ["audit", "verify", "--tenant", "globex"])
    assert empty.exit_code == 0 and "audit intact: 0 decision(s)" in empty.stdout
