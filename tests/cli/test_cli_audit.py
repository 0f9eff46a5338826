"""`signoff audit verify` and `signoff audit list` on a real SQLite store, no Temporal:
exit 0 on an intact chain, 1 naming the row edited by hand, 2 for an unknown tenant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from typer.testing import CliRunner

from activities.store import write_transaction
from activities.store.prompt_catalogs import save_catalog
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from tests.store.chain_rewrite import rewrite_and_rehash
from workflows.prompt_catalog import PromptCatalog
from workflows.tool_catalog import BUILTIN_AGENT_TOOLS


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


def test_verify_checks_each_decision_signature(
    audited_store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row rewritten to another reviewer and rehashed keeps an intact chain; its
    signed decision still names alice, so verify names the row (exit 1)."""
    cli = CliRunner()
    intact = cli.invoke(app, ["audit", "verify"])
    assert "every reviewer decision is signed: 2 checked" in intact.stdout
    with write_transaction(audited_store) as session:
        session.execute(text("UPDATE decisions SET reviewer_id = 'mallory' WHERE seq = 1"))
    rewrite_and_rehash(audited_store, "demo", 1, "checked")
    forged = cli.invoke(app, ["audit", "verify"])
    assert forged.exit_code == 1
    assert "decision not proven: tenant demo" in forged.stderr
    assert "(seq 1, approved by mallory" in forged.stderr
    assert "another action, verdict, reviewer or tenant" in forged.stderr
    report = json.loads(cli.invoke(app, ["audit", "verify", "--json"]).stdout)
    assert report["chains_intact"] is True and report["intact"] is False
    assert [row["seq"] for row in report["unproven_decisions"]] == [1]

    monkeypatch.setenv("SIGNOFF_DECISION_PUBLIC_KEYS_FILE", str(tmp_path / "none.json"))
    get_settings.cache_clear()
    keyless = cli.invoke(app, ["audit", "verify"])
    assert keyless.exit_code == 2
    assert "No decision public keys" in keyless.stderr and "--no-signatures" in keyless.stderr
    chains_only = cli.invoke(app, ["audit", "verify", "--no-signatures"])
    assert chains_only.exit_code == 0 and "audit intact" in chains_only.stdout


def test_prompt_shows_what_a_runs_model_was_offered_and_refuses_a_changed_row(
    audited_store: Engine,
) -> None:
    catalog = PromptCatalog(
        system="You answer one ticket.\nNever promise a refund.",
        tools=tuple(tool.spec() for tool in BUILTIN_AGENT_TOOLS),
    )
    digest = save_catalog(audited_store, catalog)
    cli = CliRunner()
    shown = cli.invoke(app, ["audit", "prompt", digest])
    assert shown.exit_code == 0, shown.output
    assert f"prompt catalog {digest}: the stored text hashes to it" in shown.stdout
    assert "  Never promise a refund." in shown.stdout
    assert "tools offered (3): read_ticket, get_order, refund" in shown.stdout
    document = json.loads(cli.invoke(app, ["audit", "prompt", digest, "--json"]).stdout)
    assert document["digest"] == digest and document["tools"][2]["name"] == "refund"

    with write_transaction(audited_store) as session:
        session.execute(
            text("UPDATE prompt_catalogs SET content = replace(content, 'Never', 'Always')")
        )
    changed = cli.invoke(app, ["audit", "prompt", digest])
    assert changed.exit_code == 1 and "changed after it was written" in changed.stderr
    unknown = cli.invoke(app, ["audit", "prompt", "0" * 64])
    assert unknown.exit_code == 2 and "No prompt catalog" in unknown.stderr
