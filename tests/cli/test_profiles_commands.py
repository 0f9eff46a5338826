"""`signoff profiles check/show`, and the worker's start-up check: a bad profile file stops
`signoff worker` and `signoff dev` with exit 2 and the loader's message, before anything
connects or starts (no Temporal server is needed here: the check comes first)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from signoff.config.profiles import BUILTIN_PROFILES, load_profile_file
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from signoff.wiring.local_stack import free_port

TWO_AGENTS = """\
default_agent = "support"

[agents.support]
system_prompt = "Answer the ticket."
tools = ["read_ticket", "get_order", "refund"]
model = { provider = "scripted", model_id = "demo" }
budgets.default = { steps = 8, tokens = 1000, deadline = "2h" }
tool_policy.refund = { approval = "confirm", approver_roles = ["refund_approver"] }
tenants.globex = { deny_tools = ["refund"] }

[agents.tracking]
system_prompt = "Say where the parcel is."
tools = ["read_ticket", "get_order"]
model = { provider = "anthropic" }
budgets.default = { steps = 4, tokens = 1000, deadline = "30m" }
"""
BAD = TWO_AGENTS.replace('approval = "confirm"', 'approval = "maybe"')
BAD_MESSAGE = (
    "agents.support.tool_policy.refund.approval: 'maybe' is not allowed; "
    "allowed: auto, confirm, review, deny"
)


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", f"127.0.0.1:{free_port()}")
    monkeypatch.delenv("SIGNOFF_PROFILES", raising=False)
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def profile(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "profiles.toml"
    path.write_text(text)
    return path


def test_check_prints_one_line_per_agent(cli: CliRunner, tmp_path: Path) -> None:
    path = profile(tmp_path, TWO_AGENTS)
    result = cli.invoke(app, ["profiles", "check", str(path)])
    assert result.exit_code == 0, result.output
    header, *agents = result.stdout.splitlines()
    assert header == (
        f"{path}: profile 'profiles' is valid, sha256 {load_profile_file(path).content_hash}"
    )
    assert agents == [
        "agent support (default): model scripted:demo; tools read_ticket (read), get_order "
        "(read), refund (confirm); budgets default; narrowed for tenants globex",
        "agent tracking: model anthropic; tools read_ticket (read), get_order (read); "
        "budgets default",
    ]


def test_check_of_a_bad_file_says_what_and_where_and_nothing_else(
    cli: CliRunner, tmp_path: Path
) -> None:
    path = profile(tmp_path, BAD)
    result = cli.invoke(app, ["profiles", "check", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"error: {path}: {BAD_MESSAGE}\n"


def test_show_prints_the_built_in_profile_by_default(cli: CliRunner) -> None:
    result = cli.invoke(app, ["profiles", "show"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"profile builtin (built-in: {BUILTIN_PROFILES})"
    assert lines[1] == f"sha256 {load_profile_file(BUILTIN_PROFILES).content_hash}"
    assert (
        "    refund: irreversible, confirm, four eyes above 200.00, expires after 1d, "
        "approved by refund_approver, reviewer may edit amount"
    ) in lines


def test_show_says_a_tool_s_call_timeout(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    timed = TWO_AGENTS.replace(
        'approver_roles = ["refund_approver"] }',
        'approver_roles = ["refund_approver"], call_timeout = "90s" }',
    )
    monkeypatch.setenv("SIGNOFF_PROFILES", str(profile(tmp_path, timed)))
    get_settings.cache_clear()
    result = cli.invoke(app, ["profiles", "show"])
    assert result.exit_code == 0, result.output
    assert (
        "    refund: irreversible, confirm, expires after 1d, approved by refund_approver, "
        "each call attempt up to 90s"
    ) in result.stdout.splitlines()
    assert "    get_order: read, auto" in result.stdout.splitlines()


def test_show_json_follows_the_setting(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = profile(tmp_path, TWO_AGENTS)
    monkeypatch.setenv("SIGNOFF_PROFILES", str(path))
    get_settings.cache_clear()
    result = cli.invoke(app, ["profiles", "show", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert (shown["name"], shown["source"], shown["builtin"]) == ("profiles", str(path), False)
    assert shown["content_hash"] == load_profile_file(path).content_hash
    tracking = shown["profiles"]["agents"]["tracking"]
    assert tracking["budgets"]["default"]["deadline"] == "30m"
    assert shown["profiles"]["agents"]["support"]["tenants"] == {
        "globex": {"allow_tools": None, "deny_tools": ["refund"]}
    }


def test_show_refuses_a_bad_setting_file(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = profile(tmp_path, BAD)
    monkeypatch.setenv("SIGNOFF_PROFILES", str(path))
    get_settings.cache_clear()
    result = cli.invoke(app, ["profiles", "show"])
    assert (result.exit_code, result.stderr) == (2, f"error: {path}: {BAD_MESSAGE}\n")


def test_a_worker_will_not_start_on_a_bad_profile(tmp_path: Path) -> None:
    path = profile(tmp_path, BAD)
    env = {
        **os.environ,
        "SIGNOFF_HOME": str(tmp_path),
        "SIGNOFF_PROFILES": str(path),
        # Nothing listens there: a worker that went on would fail to connect instead.
        "SIGNOFF_TEMPORAL_ADDRESS": f"127.0.0.1:{free_port()}",
    }
    worker = [sys.executable, "-c", "from signoff.wiring.app import main; main()", "worker"]
    ran = subprocess.run(worker, env=env, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 2
    assert ran.stderr == f"error: {path}: {BAD_MESSAGE}\n"
    assert ran.stdout == ""


def test_dev_will_not_start_on_a_bad_profile(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = profile(tmp_path, BAD)
    monkeypatch.setenv("SIGNOFF_PROFILES", str(path))
    with socket.socket() as taken:
        # Were the profile checked later, dev would stop here: "Something already listens".
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", f"127.0.0.1:{taken.getsockname()[1]}")
        get_settings.cache_clear()
        result = cli.invoke(app, ["dev"])
    assert (result.exit_code, result.stderr) == (2, f"error: {path}: {BAD_MESSAGE}\n")


def test_the_docs_example_passes_check(cli: CliRunner, tmp_path: Path) -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "configuration" / "profiles.md"
    section = page.read_text()
    example = section[section.index("```toml\n") + 8 : section.index("\n```\n")]
    path = profile(tmp_path, example)
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "support.md").write_text("Answer the ticket.")
    result = cli.invoke(app, ["profiles", "check", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1].startswith("agent support (default): model auto;")


def test_run_names_an_agent_of_the_profiles_or_says_which_exist(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNOFF_PROFILES", str(profile(tmp_path, TWO_AGENTS)))
    get_settings.cache_clear()
    result = cli.invoke(app, ["run", "--ticket", "T-1042", "--agent", "billing"])
    assert result.exit_code == 2
    assert "No agent 'billing' in" in result.output
    assert "choose one of: support, tracking." in result.output


def test_run_names_a_kind_of_task_the_agent_budgets_or_says_which_exist(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNOFF_PROFILES", str(profile(tmp_path, TWO_AGENTS)))
    get_settings.cache_clear()
    result = cli.invoke(app, ["run", "--ticket", "T-1042", "--kind", "refnud"])
    assert result.exit_code == 2
    assert "No budget for the kind 'refnud' in" in result.output
    assert "choose one of: default" in result.output


def test_run_stops_on_a_bad_profile_with_the_loaders_message(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNOFF_PROFILES", str(profile(tmp_path, BAD)))
    get_settings.cache_clear()
    result = cli.invoke(app, ["run", "--ticket", "T-1042"])
    assert result.exit_code == 2
    assert BAD_MESSAGE in result.output and "Traceback" not in result.output


def test_the_docs_team_profile_checks_with_its_python_tools() -> None:
    """docs/configuration/add-a-tool.md: the command as written there, from the root."""
    root = Path(__file__).parents[2]
    result = subprocess.run(
        [
            str(root / ".venv" / "bin" / "signoff"),
            "profiles",
            "check",
            "tests/tools/team_profile.toml",
        ],
        cwd=root,
        env={**os.environ, "PYTHONPATH": "."},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "profile 'team' is valid" in result.stdout
    assert "lookup_stock (read), issue_voucher (confirm)" in result.stdout
