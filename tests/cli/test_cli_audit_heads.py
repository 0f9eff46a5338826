"""`signoff audit heads` and `signoff audit verify --expect-heads` on a real SQLite
store: an attacker with write access rewrites a row and rehashes every row after it;
`verify` alone passes, `verify` against the heads saved before fails, naming the tenant
and the seq. A heads file that was altered or is not one is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from signoff.config.decision_keys import load_signer
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from tests.store.chain_rewrite import delete_from, edit_row, rewrite_and_rehash
from tests.workflow.approvals import TEST_SIGNER


def decision_service_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This home as the decision service's host too: its key ring made here with
    `signoff keys init` (where SIGNOFF_DECISION_SIGNING_KEYS_FILE says it goes), and its
    key pinned beside the tests' one, which signed the store's decisions."""
    monkeypatch.setenv("SIGNOFF_DECISION_SIGNING_KEYS_FILE", str(tmp_path / "ring.json"))
    get_settings.cache_clear()
    made = CliRunner().invoke(app, ["keys", "init"])
    assert made.exit_code == 0, made.output
    pinned = f"{TEST_SIGNER.key_id},{load_signer(get_settings()).key_id}"
    monkeypatch.setenv("SIGNOFF_TRUSTED_KEY_IDS", pinned)
    get_settings.cache_clear()


def saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Heads exported where they are signed: on the decision service's host."""
    decision_service_here(tmp_path, monkeypatch)
    heads = tmp_path / "heads.json"
    answer = CliRunner().invoke(app, ["audit", "heads", "--output", str(heads)])
    assert answer.exit_code == 0, answer.output
    assert "1 head(s) written" in answer.stdout
    return heads


def test_a_rehashed_chain_fails_only_against_saved_heads(
    audited_store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    heads = saved(tmp_path, monkeypatch)
    document = json.loads(heads.read_text())["document"]
    assert [(head["tenant_id"], head["seq"]) for head in document["heads"]] == [("demo", 2)]
    cli = CliRunner()
    before = cli.invoke(app, ["audit", "verify", "--expect-heads", str(heads)])
    assert before.exit_code == 0, before.output
    assert "every saved head holds: 1 head(s)" in before.stdout

    rewrite_and_rehash(audited_store, "demo", 1, "approved after a call")
    alone = cli.invoke(app, ["audit", "verify"])
    assert alone.exit_code == 0, alone.output  # the chain recomputes: invisible alone
    against = cli.invoke(app, ["audit", "verify", "--expect-heads", str(heads)])
    assert against.exit_code == 1
    assert "saved head not matched: tenant demo, seq 2:" in against.stderr
    assert "rewritten and the chain rehashed" in against.stderr
    report = json.loads(
        cli.invoke(app, ["audit", "verify", "--expect-heads", str(heads), "--json"]).stdout
    )
    assert report["intact"] is False and report["chains_intact"] is True
    assert report["saved_heads_not_matched"][0]["seq"] == 2


def test_rows_removed_up_to_a_saved_head_fail(
    audited_store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    heads = saved(tmp_path, monkeypatch)
    delete_from(audited_store, "demo", 2)
    against = CliRunner().invoke(app, ["audit", "verify", "--expect-heads", str(heads)])
    assert against.exit_code == 1
    assert "tenant demo, seq 2: the saved head's row is gone" in against.stderr


def test_an_edit_below_a_saved_head_fails_it_too(
    audited_store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    heads = saved(tmp_path, monkeypatch)
    edit_row(audited_store, "demo", 1, "approved after a call")  # not rehashed
    against = CliRunner().invoke(app, ["audit", "verify", "--expect-heads", str(heads)])
    assert against.exit_code == 1
    assert "audit broken: tenant demo" in against.stderr
    assert "tenant demo, seq 2: the chain up to the saved head no longer recomputes at seq 1" in (
        against.stderr
    )


def test_an_altered_heads_file_is_refused(
    audited_store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    heads = saved(tmp_path, monkeypatch)
    signed = json.loads(heads.read_text())
    # The attacker who rehashed the chain writes the new head into the file.
    rewrite_and_rehash(audited_store, "demo", 1, "approved after a call")
    new_head = json.loads(CliRunner().invoke(app, ["audit", "verify", "--json"]).stdout)
    signed["document"]["heads"][0]["row_hash"] = new_head["heads"]["demo"]
    heads.write_text(json.dumps(signed))
    against = CliRunner().invoke(app, ["audit", "verify", "--expect-heads", str(heads)])
    assert against.exit_code == 1 and "signature does not hold" in against.stderr


def test_a_file_that_is_not_a_heads_file_is_bad_input(
    audited_store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decision_service_here(tmp_path, monkeypatch)  # the public keys are there
    other = tmp_path / "other.json"
    other.write_text('{"intact": true}')
    for path in (other, tmp_path / "missing.json"):
        answer = CliRunner().invoke(app, ["audit", "verify", "--expect-heads", str(path)])
        assert answer.exit_code == 2, answer.output
        assert "heads file" in answer.stderr


def test_a_host_without_the_decision_key_ring_cannot_sign_heads(
    audited_store: Engine, tmp_path: Path
) -> None:
    answer = CliRunner().invoke(app, ["audit", "heads", "--output", str(tmp_path / "h.json")])
    assert answer.exit_code == 2
    assert "holds no decision signing key" in answer.output
    assert "Export the heads on the decision service's host" in answer.output
    assert not (tmp_path / "h.json").exists()
