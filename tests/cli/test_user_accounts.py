"""`signoff user disable|enable|roles|token`, names that differ only in case, and
`signoff ui` refusing a weak cookie secret: through typer's CliRunner on a seeded store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from activities.store import get_reviewer, make_engine, token_reviewer, tokens_of
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from tests.admin import admin_token
from tests.conftest import fresh_demo_store
from workflows.actions import REFUND_APPROVER_ROLE


@pytest.fixture
def home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, demo_store_template: Path
) -> Iterator[Path]:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.delenv("SIGNOFF_UI_SECRET", raising=False)
    get_settings.cache_clear()
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    monkeypatch.setenv("SIGNOFF_TOKEN", admin_token(engine))  # what `--as admin` reads
    engine.dispose()
    yield tmp_path
    get_settings.cache_clear()


@pytest.fixture
def store(home: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{home / 'signoff.db'}")
    yield engine
    engine.dispose()


def signoff(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """A `signoff user` change as the demo administrator; other commands as given."""
    changes = {"add", "passwd", "disable", "enable", "roles", "token", "tokens"}
    as_admin = ["--as", "admin"] if args[:1] == ("user",) and args[1] in changes else []
    result = CliRunner().invoke(app, [*args, *as_admin], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_disable_and_enable(home: Path, store: Engine) -> None:
    code, out, _ = signoff("user", "disable", "Bob", "--json")
    assert code == 0
    assert json.loads(out) == {
        "reviewer": "bob",
        "tenant": "demo",
        "active": False,
        "roles": [REFUND_APPROVER_ROLE],
    }
    bob = get_reviewer(store, "bob")
    assert bob is not None and bob.active is False
    code, out, _ = signoff("user", "enable", "bob")
    assert code == 0 and "reviewer bob enabled" in out
    bob = get_reviewer(store, "bob")
    assert bob is not None and bob.active is True


def test_unknown_names_are_exit_2_with_what_to_do(home: Path) -> None:
    for command in (
        ["disable"],
        ["enable"],
        ["roles", "--add", "auditor"],
        ["token"],
        ["token", "--revoke"],
        ["tokens"],
    ):
        code, _, err = signoff("user", command[0], "mallory", *command[1:])
        assert code == 2, command
        assert "Reviewer 'mallory' does not exist" in err and "signoff user add" in err


def test_roles_are_added_removed_and_shown(home: Path, store: Engine) -> None:
    code, out, _ = signoff("user", "roles", "dave", "--add", REFUND_APPROVER_ROLE)
    assert code == 0 and f"roles {REFUND_APPROVER_ROLE}" in out
    code, out, _ = signoff("user", "roles", "alice", "--remove", REFUND_APPROVER_ROLE, "--json")
    assert code == 0 and json.loads(out)["roles"] == []
    code, out, _ = signoff("user", "roles", "ALICE")
    assert code == 0 and "reviewer alice: roles none" in out
    dave = get_reviewer(store, "dave")
    assert dave is not None and dave.role_list == [REFUND_APPROVER_ROLE]
    code, _, err = signoff("user", "roles", "dave", "--add", "two words")
    assert code == 2 and "Invalid role 'two words'" in err


def test_token_is_printed_once_and_stored_hashed(home: Path, store: Engine) -> None:
    code, out, err = signoff("user", "token", "carol")
    assert code == 0 and "shown this once" in err
    token = out.strip()
    assert token.startswith("so_")
    [row] = tokens_of(store, "carol")
    assert row.token_hash not in (None, token) and token not in row.token_hash
    found = token_reviewer(store, token)
    assert found is not None and found.id == "carol"
    code, out, _ = signoff("user", "token", "carol", "--json")
    issued = json.loads(out)
    assert code == 0 and issued["reviewer"] == "carol"
    assert token_reviewer(store, token) is not None  # a second token leaves the first
    code, out, _ = signoff("user", "token", "revoke", str(row.id), "--json")
    assert code == 0 and json.loads(out)["token_id"] == row.id
    assert token_reviewer(store, token) is None
    assert token_reviewer(store, issued["token"]) is not None
    code, out, _ = signoff("user", "token", "carol", "--revoke", "--json")
    assert code == 0 and json.loads(out) == {"reviewer": "carol", "revoked": 1}
    assert token_reviewer(store, issued["token"]) is None


def test_tokens_lists_ids_and_times_never_the_secret(home: Path, store: Engine) -> None:
    _, first, _ = signoff("user", "token", "carol")
    signoff("user", "token", "carol")
    [revoked, _] = tokens_of(store, "carol")
    signoff("user", "token", "revoke", str(revoked.id))
    code, out, _ = signoff("user", "tokens", "CAROL", "--json")
    assert code == 0
    listed = json.loads(out)
    assert [item["status"] for item in listed] == ["revoked", "active"]
    assert listed[0]["id"] == revoked.id and listed[0]["revoked_at"] is not None
    assert set(listed[0]) == {"id", "created_at", "expires_at", "revoked_at", "status"}
    code, out, _ = signoff("user", "tokens", "carol")
    assert code == 0 and first.strip() not in out and "revoked" in out


def test_a_second_spelling_of_a_name_is_refused(home: Path) -> None:
    code, _, err = signoff(
        "user", "add", "Alice", "--tenant", "demo", "--password-stdin", stdin="long enough pw\n"
    )
    assert code == 2
    assert "exists already as 'alice'" in err


def test_ui_refuses_a_short_secret(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIGNOFF_UI_SECRET", "too-short")
    get_settings.cache_clear()
    code, _, err = signoff("ui")
    assert code == 2
    assert "SIGNOFF_UI_SECRET has 9 bytes; it needs at least 32" in err


def test_ui_refuses_a_secret_file_others_can_read(home: Path) -> None:
    secret_file = home / "ui-secret"
    secret_file.write_text("x" * 64)
    secret_file.chmod(0o644)
    code, _, err = signoff("ui")
    assert code == 2
    assert "can be read or written by other users (mode 644)" in err
    assert f"chmod 600 {secret_file}" in err
