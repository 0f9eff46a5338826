"""`signoff approve --as NAME` needs NAME's own password; a bad one decides nothing.

Temporal is not even running here: a refusal must come before any contact with it, and
with the right password the command goes on and says that Temporal did not answer.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from activities.store import issue_token, make_engine, revoke_token
from signoff.config.settings import get_settings
from signoff.service.decisions import UNAVAILABLE
from signoff.wiring.app import app
from signoff.wiring.local_stack import free_port
from tests.admin import ADMIN
from tests.clock import clock_now

HASH = "ab" * 32


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", f"127.0.0.1:{free_port()}")
    get_settings.cache_clear()
    runner = CliRunner()
    assert runner.invoke(app, ["seed", "--demo"]).exit_code == 0
    yield runner
    get_settings.cache_clear()


def approve(cli: CliRunner, reviewer: str, password: str) -> tuple[int, str]:
    args = ["approve", "run-demo-x", "--hash", HASH, "--as", reviewer, "--password-stdin"]
    result = cli.invoke(app, args, input=password + "\n")
    return result.exit_code, result.stderr


def test_as_alone_never_decides(cli: CliRunner) -> None:
    # bob's password does not make anyone alice: one operator cannot be both reviewers.
    code, stderr = approve(cli, "alice", "demo-bob")
    assert code == 2 and "Wrong password for 'alice'" in stderr
    code, stderr = approve(cli, "mallory", "anything")
    assert code == 2 and "Wrong password for 'mallory'" in stderr


def test_the_right_password_goes_on_to_the_run(cli: CliRunner) -> None:
    code, stderr = approve(cli, "alice", "demo-alice")
    assert code == 1, stderr
    assert UNAVAILABLE in stderr.replace("\n", " ")


def test_a_short_decision_key_is_refused_with_what_to_do(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNOFF_DECISION_KEY", "short")
    get_settings.cache_clear()
    code, stderr = approve(cli, "alice", "demo-alice")
    assert code == 2 and "SIGNOFF_DECISION_KEY has 5 bytes; it needs at least 32" in stderr


def test_a_key_file_others_can_read_is_refused(cli: CliRunner, tmp_path: Path) -> None:
    key = tmp_path / "decision-key"
    key.write_text("k" * 48)
    key.chmod(0o644)
    code, stderr = approve(cli, "alice", "demo-alice")
    assert code == 2 and "can be read or written by other users" in stderr


def test_an_api_token_proves_only_its_own_reviewer(cli: CliRunner, tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'signoff.db'}")
    _, _, token = issue_token(engine, ADMIN, "bob", timedelta(days=1))
    engine.dispose()
    args = ["approve", "run-demo-x", "--hash", HASH, "--as"]

    as_alice = cli.invoke(app, [*args, "alice", "--token-stdin"], input=token + "\n")
    assert as_alice.exit_code == 2 and "not 'alice''s" in as_alice.stderr
    as_bob = cli.invoke(app, [*args, "bob", "--token-stdin"], input=token + "\n")
    assert as_bob.exit_code == 1 and UNAVAILABLE in as_bob.stderr.replace("\n", " ")


def test_a_revoked_or_expired_token_decides_nothing_and_says_why(
    cli: CliRunner, tmp_path: Path
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'signoff.db'}")
    long_ago = clock_now() - timedelta(days=2)
    _, _, expired = issue_token(engine, ADMIN, "bob", timedelta(days=1), now=long_ago)
    _, row, revoked = issue_token(engine, ADMIN, "bob", timedelta(days=1))
    revoke_token(engine, ADMIN, row.id)
    engine.dispose()
    args = ["approve", "run-demo-x", "--hash", HASH, "--as", "bob", "--token-stdin"]
    for token, why in ((expired, "expired at"), (revoked, "was revoked at")):
        answer = cli.invoke(app, args, input=token + "\n")
        assert answer.exit_code == 2 and why in answer.stderr
        assert "Nothing was decided" in answer.stderr
