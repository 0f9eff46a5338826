"""`signoff history export`: bad usage is refused with exit 2 before Temporal is asked;
an unreachable Temporal is a sentence, not a stack trace. (On a server: tests/e2e/.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from signoff.config.settings import get_settings
from signoff.wiring.app import app
from signoff.wiring.local_stack import free_port


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path / "home"))
    # Nothing listens there: a command that reaches Temporal must say so.
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", f"127.0.0.1:{free_port()}")
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ([], "Give either a RUN id or --query"),
        (["run-demo-1", "--query", "WorkflowType = 'AgentRun'"], "not both"),
        (["--query", "WorkflowType = 'AgentRun'"], "give a folder with -o DIR"),
        (["run-demo-1", "--tenant", "a-b"], "Invalid tenant id 'a-b': it may not contain '-'"),
        (["run-demo-1", "-o", "/no/such/folder/run.json"], "the folder /no/such/folder"),
    ],
)
def test_bad_usage_exits_2(cli: CliRunner, arguments: list[str], said: str) -> None:
    result = cli.invoke(app, ["history", "export", *arguments])
    assert result.exit_code == 2
    assert said in result.stderr
    assert "Cannot reach Temporal" not in result.stderr  # refused before any connection


def test_a_query_into_a_file_is_refused(cli: CliRunner, tmp_path: Path) -> None:
    existing = tmp_path / "runs.json"
    existing.write_text("{}", encoding="utf-8")
    result = cli.invoke(
        app, ["history", "export", "--query", "WorkflowType = 'AgentRun'", "-o", str(existing)]
    )
    assert result.exit_code == 2
    assert "give a folder with -o DIR" in result.stderr


def test_unreachable_temporal_is_a_sentence(cli: CliRunner) -> None:
    result = cli.invoke(app, ["history", "export", "run-demo-1"])
    assert result.exit_code == 2
    assert "Cannot reach Temporal at 127.0.0.1:" in result.stderr


def test_help(cli: CliRunner) -> None:
    for command in (["history", "export"], ["replay"]):
        result = cli.invoke(app, [*command, "--help"])
        assert result.exit_code == 0, command
        assert "Usage" in result.output


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (["history", "export", "run-demo-1"], "Temporal did not give the history of run-demo-1"),
        (["history", "gates"], "Temporal did not list the open runs"),
    ],
)
def test_a_temporal_error_is_a_sentence_with_the_servers_words(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch, command: list[str], said: str
) -> None:
    from temporalio.service import RPCError, RPCStatusCode

    from signoff.cli import commands_history
    from signoff.service.handles import Runs
    from tests.unit.test_history_refusals import RefusingClient

    async def refusing(current: object) -> Runs:
        return Runs(RefusingClient(RPCStatusCode.UNAVAILABLE))  # type: ignore[arg-type]

    monkeypatch.setattr(commands_history, "client_for", refusing)
    result = cli.invoke(app, command)
    assert result.exit_code == 2
    assert f"{said}: the frontend is down" in result.stderr
    assert RPCError.__name__ not in result.stderr  # a sentence, not a stack trace
