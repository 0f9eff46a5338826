"""UI pieces that need no Temporal: accounts from the CLI, the rate limit, error pages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from activities.store import get_reviewer, make_engine, verify_password
from approvals_ui.main import create_app
from signoff.config.settings import Settings, get_settings
from signoff.wiring.app import app as cli_app
from tests.admin import admin_token
from tests.conftest import fresh_demo_store


@pytest.fixture
def home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, demo_store_template: Path
) -> Iterator[Path]:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    get_settings.cache_clear()
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    monkeypatch.setenv("SIGNOFF_TOKEN", admin_token(engine))  # what `--as admin` reads
    engine.dispose()
    yield tmp_path
    get_settings.cache_clear()


def test_user_add_and_passwd_from_stdin(home: Path) -> None:
    runner = CliRunner()
    added = runner.invoke(
        cli_app,
        [
            "user",
            "add",
            "erin",
            "--tenant",
            "demo",
            "--role",
            "refund_approver",
            "--password-stdin",
            "--as",
            "admin",
        ],
        input="correct horse battery\n",
    )
    assert added.exit_code == 0, added.output
    again = runner.invoke(
        cli_app,
        ["user", "add", "erin", "--tenant", "demo", "--password-stdin", "--as", "admin"],
        input="x" * 9,
    )
    assert again.exit_code == 2 and "exists already" in again.output
    short = runner.invoke(
        cli_app,
        ["user", "add", "fred", "--tenant", "demo", "--password-stdin", "--as", "admin"],
        input="short\n",
    )
    assert short.exit_code == 2 and "at least 8 characters" in short.output
    changed = runner.invoke(
        cli_app,
        ["user", "passwd", "erin", "--password-stdin", "--as", "admin"],
        input="another long one\n",
    )
    assert changed.exit_code == 0, changed.output
    engine = make_engine(f"sqlite:///{home / 'signoff.db'}")
    erin = get_reviewer(engine, "erin")
    engine.dispose()
    assert erin is not None and erin.role_list == ["refund_approver"]
    assert erin.password_hash is not None and erin.password_hash.startswith("$argon2id$")
    assert verify_password("another long one", erin.password_hash)
    assert not verify_password("correct horse battery", erin.password_hash)


def test_user_add_prompts_twice(home: Path) -> None:
    answer = CliRunner().invoke(
        cli_app,
        ["user", "add", "gina", "--tenant", "demo", "--as", "admin"],
        input="long enough 1\nother 12345\n",
    )
    assert answer.exit_code == 2 and "differ" in answer.output


class BrokenTemporal:
    def get_workflow_handle(self, *_: Any, **__: Any) -> Any:
        raise RuntimeError("secret internal detail /etc/passwd")


async def broken_connect(_: Settings) -> Any:
    return BrokenTemporal()


async def unreachable_connect(_: Settings) -> Any:
    raise RuntimeError("connection refused")


def signed_in(client: TestClient) -> None:
    token = client.get("/signin").text.split('name="csrf_token" value="')[1].split('"')[0]
    answer = client.post(
        "/signin", data={"csrf_token": token, "username": "alice", "password": "demo-alice"}
    )
    assert answer.status_code == 303


def test_unexpected_errors_show_no_stack_trace(home: Path) -> None:
    app = create_app(Settings(home=home), temporal_connect=broken_connect)
    with TestClient(app, raise_server_exceptions=False, follow_redirects=False) as client:
        signed_in(client)
        # A run's page asks Temporal (the inbox lists from the store: issue 13).
        page = client.get("/approvals/run-demo-x")
    assert page.status_code == 500
    assert "Something went wrong on our side" in page.text
    assert "secret internal detail" not in page.text and "Traceback" not in page.text


def test_unreachable_temporal_is_a_plain_503(home: Path) -> None:
    app = create_app(Settings(home=home), temporal_connect=unreachable_connect)
    with TestClient(app, follow_redirects=False) as client:
        signed_in(client)
        page = client.get("/approvals/run-demo-x")
        assert client.get("/approvals").status_code == 200  # the inbox needs no Temporal
    assert page.status_code == 503
    assert "Temporal cannot be reached" in page.text


def test_session_secret_is_generated_once_into_home(home: Path) -> None:
    create_app(Settings(home=home))
    secret = (home / "ui-secret").read_text()
    create_app(Settings(home=home))
    assert (home / "ui-secret").read_text() == secret and len(secret) >= 32
    assert (home / "ui-secret").stat().st_mode & 0o077 == 0
