"""Bad input gets a sentence on stderr and exit code 2; nothing starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from signoff.cli.approval_edits import edits_of
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from signoff.wiring.local_stack import free_port
from tests.conftest import fresh_demo_store


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    # Nothing listens there: a command that needs Temporal must say so, not hang.
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", f"127.0.0.1:{free_port()}")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


@pytest.fixture
def seeded(cli: CliRunner, tmp_path: Path, demo_store_template: Path) -> None:
    """The store `signoff seed` makes, copied from the process's template (tests/conftest.py)
    rather than migrated and seeded anew for each test that only needs the demo data."""
    fresh_demo_store(demo_store_template, tmp_path / "signoff.db").dispose()


def test_every_command_has_help(cli: CliRunner) -> None:
    for command in (
        ["run"],
        ["status"],
        ["list"],
        ["cancel"],
        ["seed"],
        ["worker"],
        ["dev"],
        ["ticket", "add"],
        ["audit", "verify"],
        ["audit", "list"],
        ["pending"],
    ):
        result = cli.invoke(app, [*command, "--help"])
        assert result.exit_code == 0, command
        assert "Usage" in result.output


def test_seed_twice_creates_nothing_the_second_time(cli: CliRunner) -> None:
    first = cli.invoke(app, ["seed", "--json"])
    second = cli.invoke(app, ["seed", "--json"])
    assert first.exit_code == 0 and second.exit_code == 0
    assert json.loads(first.stdout)["created"]
    assert json.loads(second.stdout)["created"] == []


@pytest.mark.usefixtures("seeded")
def test_unknown_model_is_refused(cli: CliRunner) -> None:
    result = cli.invoke(app, ["run", "--ticket", "T-4512", "--model", "gpt-9"])
    assert result.exit_code == 2
    assert "Unknown model 'gpt-9'" in result.stderr


@pytest.mark.usefixtures("seeded")
def test_missing_ticket_is_refused_before_anything_starts(cli: CliRunner) -> None:
    result = cli.invoke(app, ["run", "--ticket", "T-0000"])
    assert result.exit_code == 2
    assert "Ticket 'T-0000' does not exist for tenant 'demo'" in result.stderr


@pytest.mark.usefixtures("seeded")
def test_ticket_of_another_tenant_is_not_found(cli: CliRunner) -> None:
    result = cli.invoke(app, ["run", "--ticket", "T-4512", "--tenant", "globex"])
    assert result.exit_code == 2
    assert "does not exist for tenant 'globex'" in result.stderr


@pytest.mark.usefixtures("seeded")
def test_malformed_identifier_is_refused(cli: CliRunner) -> None:
    result = cli.invoke(app, ["run", "--ticket", "T-4512", "--request-id", "a b;c"])
    assert result.exit_code == 2
    assert "request_id" in result.stderr


def test_unreachable_temporal_is_a_clear_error(cli: CliRunner) -> None:
    result = cli.invoke(app, ["list"])
    assert result.exit_code == 2
    assert "Cannot reach Temporal" in result.stderr
    assert "Traceback" not in result.output + result.stderr


def test_unknown_status_filter_is_refused(cli: CliRunner) -> None:
    result = cli.invoke(app, ["list", "--status", "done"])
    assert result.exit_code == 2
    assert "Unknown status 'done'" in result.stderr


def test_a_cursor_not_given_by_the_listing_is_refused(cli: CliRunner) -> None:
    # Refused before Temporal is asked (it is unreachable here): the cursor is not one of ours.
    for command in (["pending"], ["list"]):
        result = cli.invoke(app, [*command, "--after", "p1.not-a-cursor!"])
        assert result.exit_code == 2, command
        assert "not given by this listing" in result.stderr, command


@pytest.mark.usefixtures("seeded")
def test_ticket_add_reads_stdin_and_prints_the_new_id(cli: CliRunner) -> None:
    result = cli.invoke(
        app,
        ["ticket", "add", "--tenant", "demo", "--order", "4512", "--text-file", "-", "--json"],
        input="My parcel is late.\n",
    )
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["ticket_id"].startswith("T-")
    assert document["order"] == "4512"


@pytest.mark.usefixtures("seeded")
def test_ticket_add_refuses_an_order_of_another_tenant(cli: CliRunner) -> None:
    result = cli.invoke(
        app,
        ["ticket", "add", "--tenant", "globex", "--order", "4512", "--text-file", "-"],
        input="Where is it?",
    )
    assert result.exit_code == 2
    assert "Order '4512' does not exist for tenant 'globex'" in result.stderr


def test_ticket_add_refuses_a_missing_file(cli: CliRunner, tmp_path: Path) -> None:
    result = cli.invoke(
        app, ["ticket", "add", "--tenant", "demo", "--text-file", str(tmp_path / "nope.txt")]
    )
    assert result.exit_code == 2
    assert "no such file" in result.stderr


@pytest.mark.usefixtures("seeded")
def test_a_thinking_budget_that_cannot_fit_is_refused_in_words(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNOFF_ANTHROPIC_THINKING_BUDGET", "2048")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    get_settings.cache_clear()
    result = cli.invoke(app, ["run", "--ticket", "T-4512", "--model", "anthropic"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: Invalid run request: the thinking budget (2048 tokens) must be below "
        "max_tokens (1024): raise SIGNOFF_MAX_TOKENS or lower the budget"
    )


@pytest.mark.parametrize("ticket", ["", "a b", "-T-1"])
def test_a_ticket_id_out_of_its_pattern_is_refused_in_words(cli: CliRunner, ticket: str) -> None:
    result = cli.invoke(app, ["run", "--ticket", ticket])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: Invalid run request: ticket_id: must start with a letter or a digit and hold "
        "only letters, digits, '.', '_', ':' and '-', at most 128 characters; "
        f"got {ticket!r}"
    )


@pytest.mark.parametrize("script", ["/etc/passwd.json", "../../secrets.json", "~/x.json"])
@pytest.mark.usefixtures("seeded")
def test_a_script_outside_the_scripts_directory_is_refused(cli: CliRunner, script: str) -> None:
    result = cli.invoke(app, ["run", "--ticket", "T-4512", "--model", f"scripted:{script}"])
    assert result.exit_code == 2
    assert "is not a script name" in result.stderr


RUN_COMMANDS = (
    ["status"],
    ["status", "--follow"],
    ["cancel"],
    ["reconcile"],
    ["history", "export"],
    ["approve", "run-demo-fine"],
    ["reject", "--category", "other"],
)


@pytest.mark.parametrize("command", RUN_COMMANDS, ids=" ".join)
@pytest.mark.parametrize("run_id", ["", "a b", "run-demo-1/../x", "é"])
def test_a_run_id_out_of_its_pattern_is_refused_before_temporal_is_asked(
    cli: CliRunner, command: list[str], run_id: str
) -> None:
    # Nothing listens at the fixture's Temporal address: a command that asked it first
    # would say it cannot reach Temporal.
    result = cli.invoke(app, [*command, run_id])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {run_id!r} is not a run id. A run id starts with a letter or a digit and "
        "holds only letters, digits, '.', '_', ':' and '-', as `signoff run` printed it and "
        "`signoff list` shows it (run-TENANT-REQUEST)."
    )


def test_a_response_without_words_is_refused_before_anything_is_sent(cli: CliRunner) -> None:
    result = cli.invoke(
        app, ["respond", "run-demo-1", "--hash", "a" * 64, "--as", "bob", "--text", "  "]
    )
    assert result.exit_code == 2
    assert "Give the agent your words with --text" in result.output


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--set", "value"], "--set takes NAME=VALUE"),
        (["--set", "=10"], "--set takes NAME=VALUE"),
        (["--set", "value= "], "An edit needs a value: give the new value"),
        (["--amount", "5.00", "--set", "amount=4.00"], "'amount' is changed twice"),
    ],
)
def test_an_edit_that_is_not_name_equals_value_is_refused_before_anything_is_sent(
    cli: CliRunner, options: list[str], said: str
) -> None:
    base = ["approve", "run-demo-1", "--hash", "a" * 64, "--as", "bob", "--reason", "r"]
    result = cli.invoke(app, [*base, *options])
    assert result.exit_code == 2
    assert said in result.output


def test_any_editable_argument_is_named_by_set_beside_the_built_in_shorthands() -> None:
    edits = edits_of("50.00", None, ["value=10", 'note="sorry, Zoë"'])
    assert edits == {"amount": "50.00", "value": "10", "note": '"sorry, Zoë"'}
    assert edits_of(None, "Hello", []) == {"text": "Hello"}
    assert edits_of(None, None, []) == {}
