"""`signoff approve --as NAME` needs NAME's own password; a bad one decides nothing.

The CLI host here holds no decision key at all (its SIGNOFF_HOME is empty): the CLI
sends the credential and the decision to a real decision service (the reviewer UI
server, with the store and the key ring in a home of its own), which authenticates the
reviewer. Temporal is not even running: a refusal must come before any contact with
it, and with the right password the service goes on and says that Temporal did not
answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import NamedTuple

import pytest
from fastapi import Request, Response
from starlette.middleware.base import RequestResponseEndpoint
from typer.testing import CliRunner

from activities.store import issue_token, make_engine, revoke_token, seed_demo
from approvals_ui.main import create_app
from signoff.config.decision_keys import DecisionKeyError, load_signer
from signoff.config.settings import Settings, get_settings
from signoff.service.decisions import UNAVAILABLE
from signoff.wiring.app import app
from signoff.wiring.local_stack import free_port
from tests.admin import ADMIN
from tests.clock import clock_now
from tests.live_ui import served

HASH = "ab" * 32


class Service(NamedTuple):
    settings: Settings
    url: str
    requests: list[str]  # "METHOD /path" of every request it was sent, in order


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The decision service's settings and URL: its own home, store and key ring."""
    settings = Settings(
        home=tmp_path_factory.mktemp("service"),
        temporal_address=f"127.0.0.1:{free_port()}",
        ui_secret=None,
    )
    engine = make_engine(settings.resolved_database_url)
    seed_demo(engine)
    engine.dispose()
    requests: list[str] = []
    decision_service = create_app(settings)

    @decision_service.middleware("http")
    async def record(request: Request, call_next: RequestResponseEndpoint) -> Response:
        requests.append(f"{request.method} {request.url.path}")
        return await call_next(request)

    with served(decision_service) as url:
        yield Service(settings, url, requests)


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, service: Service) -> Iterator[CliRunner]:
    cli_home = tmp_path / "cli-host"
    cli_home.mkdir()
    monkeypatch.setenv("SIGNOFF_HOME", str(cli_home))
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", f"127.0.0.1:{free_port()}")
    monkeypatch.setenv("SIGNOFF_DECISION_SERVICE_URL", service[1])
    monkeypatch.delenv("SIGNOFF_TOKEN", raising=False)
    get_settings.cache_clear()
    yield CliRunner()
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


@pytest.mark.parametrize("password", ["demo-alice", "demo-bob"])
def test_a_password_is_checked_once_with_the_decision_itself(
    cli: CliRunner, service: Service, password: str
) -> None:
    # No `GET /api/me` first: the password names its reviewer, and each check of it is
    # argon2's slow work on the service. Right or wrong, one request carries it.
    service.requests.clear()
    code, stderr = approve(cli, "alice", password)
    assert code == (1 if password == "demo-alice" else 2), stderr
    assert service.requests == ["POST /api/approvals/run-demo-x/decision"]


def test_a_token_goes_with_the_decision_in_one_request(cli: CliRunner, service: Service) -> None:
    # No `GET /api/me` first: the decision names the reviewer `--as` gave, and the
    # service refuses it before it reads the run (Temporal is down here: the refusal is
    # not its 503) unless the token proves that reviewer.
    engine = make_engine(service.settings.resolved_database_url)
    _, _, token = issue_token(engine, ADMIN, "bob", timedelta(days=1))
    engine.dispose()
    args = ["approve", "run-demo-x", "--hash", HASH, "--token-stdin", "--as"]
    for name, code in (("alice", 2), ("bob", 1)):
        service.requests.clear()
        answer = cli.invoke(app, [*args, name], input=token + "\n")
        assert answer.exit_code == code, answer.stderr
        assert service.requests == ["POST /api/approvals/run-demo-x/decision"]
    assert UNAVAILABLE in answer.stderr.replace("\n", " ")  # bob's own: on to the run


def test_the_cli_host_holds_no_key_and_cannot_sign(cli: CliRunner, tmp_path: Path) -> None:
    code, _ = approve(cli, "alice", "demo-alice")  # went through the service
    assert code == 1
    cli_host = Settings(home=tmp_path / "cli-host")
    assert list(cli_host.home.iterdir()) == []
    with pytest.raises(DecisionKeyError, match="holds no decision signing key"):
        load_signer(cli_host)


def test_no_decision_service_is_a_clear_failure(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNOFF_DECISION_SERVICE_URL", f"http://127.0.0.1:{free_port()}")
    get_settings.cache_clear()
    code, stderr = approve(cli, "alice", "demo-alice")
    assert code == 1
    assert "did not answer. Nothing was decided" in stderr.replace("\n", " ")
    assert "Traceback" not in stderr


def test_a_malformed_hash_is_refused_before_anything_is_sent(cli: CliRunner) -> None:
    args = ["approve", "run-demo-x", "--hash", "abc", "--as", "alice", "--password-stdin"]
    result = cli.invoke(app, args, input="demo-alice\n")
    assert result.exit_code == 2 and "64-character hash" in result.stderr


def test_an_api_token_proves_only_its_own_reviewer(
    cli: CliRunner, service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(service[0].resolved_database_url)
    _, _, token = issue_token(engine, ADMIN, "bob", timedelta(days=1))
    engine.dispose()
    args = ["approve", "run-demo-x", "--hash", HASH, "--as"]

    as_alice = cli.invoke(app, [*args, "alice", "--token-stdin"], input=token + "\n")
    assert as_alice.exit_code == 2 and "is 'bob''s, not 'alice''s" in as_alice.stderr
    assert "Nothing was decided" in as_alice.stderr
    as_bob = cli.invoke(app, [*args, "bob", "--token-stdin"], input=token + "\n")
    assert as_bob.exit_code == 1 and UNAVAILABLE in as_bob.stderr.replace("\n", " ")
    # The token from the environment, without stdin.
    monkeypatch.setenv("SIGNOFF_TOKEN", token)
    get_settings.cache_clear()
    from_env = cli.invoke(app, [*args, "bob"])
    assert from_env.exit_code == 1 and UNAVAILABLE in from_env.stderr.replace("\n", " ")
    revoked = cli.invoke(app, [*args, "bob", "--token-stdin"], input="not-a-token\n")
    assert revoked.exit_code == 2 and "is not one signoff issued" in revoked.stderr


def test_a_revoked_or_expired_token_decides_nothing_and_says_why(
    cli: CliRunner, service: Service
) -> None:
    engine = make_engine(service[0].resolved_database_url)
    long_ago = clock_now() - timedelta(days=2)
    _, _, expired = issue_token(engine, ADMIN, "bob", timedelta(days=1), now=long_ago)
    _, row, revoked = issue_token(engine, ADMIN, "bob", timedelta(days=1))
    revoke_token(engine, ADMIN, row.id)
    engine.dispose()
    args = ["approve", "run-demo-x", "--hash", HASH, "--as", "bob", "--token-stdin"]
    for token, why in ((expired, "expired at"), (revoked, "was revoked at")):
        answer = cli.invoke(app, args, input=token + "\n")
        assert answer.exit_code == 2 and why in answer.stderr, answer.stderr
        assert "Nothing was decided" in answer.stderr
