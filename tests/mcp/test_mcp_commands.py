"""`signoff mcp pin` and `signoff mcp tools`, through typer's CliRunner, against a real
MCP server: the commands of docs/configuration/mcp.md as written, a pin that differs, a
server that is down (exit 1, one sentence), and a server name or agent the profile does
not declare (exit 2)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from activities.mcp.pin import AdvertisedTool, pin_of
from activities.mcp.resolve import fetch_advertised
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from tests.mcp.conftest import REPOSITORY, TIMEOUT_SECONDS, RunningServer, declared
from tests.postgres import free_port

DOCS_URL = "http://127.0.0.1:8765/mcp"
DOCS_PIN_LINE = '# pin = "..."                      # what `signoff mcp pin warranty` printed'


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_MCP_TIMEOUT_SECONDS", str(TIMEOUT_SECONDS))
    monkeypatch.delenv("SIGNOFF_PROFILES", raising=False)
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def docs_page() -> str:
    return (REPOSITORY / "docs" / "configuration" / "mcp.md").read_text()


def docs_profile(tmp_path: Path, url: str) -> Path:
    section = docs_page()
    example = section[
        section.index("```toml\n") + 8 : section.index("\n```\n", section.index("```toml"))
    ]
    assert DOCS_URL in example and DOCS_PIN_LINE in example
    path = tmp_path / "profiles.toml"
    path.write_text(example.replace(DOCS_URL, url))
    return path


def advertised_now(url: str) -> list[AdvertisedTool]:
    return asyncio.run(fetch_advertised(declared(url=url), TIMEOUT_SECONDS))


def test_the_docs_commands_pin_and_offer_the_declared_tools(
    cli: CliRunner, tmp_path: Path, mcp_server: RunningServer
) -> None:
    section = docs_page()
    assert "python -m testkit.mcp_server --state .signoff/mcp --port 8765" in section
    path = docs_profile(tmp_path, mcp_server.url)
    pinned = cli.invoke(app, ["mcp", "pin", "warranty", "--profiles", str(path)])
    assert pinned.exit_code == 0, pinned.output
    lines = pinned.stdout.splitlines()
    assert lines[0] == f"MCP server warranty ({mcp_server.url}), agent support"
    match = re.fullmatch(r"pin ([0-9a-f]{64})", lines[1])
    assert match is not None
    pin = match.group(1)
    assert pin == pin_of(advertised_now(mcp_server.url))
    assert lines[2:5] == [
        "the profile gives no pin",
        f'to accept these tools, review them below, then set pin = "{pin}" in '
        "[agents.support.mcp_servers.warranty]",
        "tools it covers (6):",
    ]
    assert "  check_recall (not declared: never offered)" in lines
    assert "  create_return_label (declared, irreversible, approval confirm)" in lines

    path.write_text(path.read_text().replace(DOCS_PIN_LINE, f'pin = "{pin}"  #'))
    offered = cli.invoke(app, ["mcp", "tools", "warranty", "--profiles", str(path)])
    assert offered.exit_code == 0, offered.output
    shown = section[section.index("$ signoff mcp tools") :].split("\n", 1)[1]
    assert offered.stdout == shown[: shown.index("```")]
    again = cli.invoke(app, ["mcp", "pin", "warranty", "--profiles", str(path)])
    assert again.stdout.splitlines()[2] == "the profile's pin matches: nothing changed"


def test_a_pin_that_differs_is_shown_beside_the_new_one(
    cli: CliRunner, tmp_path: Path, mcp_server: RunningServer
) -> None:
    path = docs_profile(tmp_path, mcp_server.url)
    path.write_text(path.read_text().replace(DOCS_PIN_LINE, f'pin = "{"a" * 64}"  #'))
    result = cli.invoke(app, ["mcp", "pin", "warranty", "--profiles", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[2] == f"the profile's pin differs: {'a' * 64}"
    offered = cli.invoke(app, ["mcp", "tools", "warranty", "--profiles", str(path)])
    assert offered.exit_code == 1
    # The error line (a log handler an earlier in-process command left behind may write
    # its own lines to the captured stderr beside it; a real process has none).
    (error,) = [line for line in offered.stderr.splitlines() if line.startswith("error: ")]
    assert error.startswith(
        "error: MCP server warranty offers no tools (pin_mismatch): its advertised tools "
        f"changed since they were pinned (pin {'a' * 64}, now "
    )


def test_a_server_that_is_down_exits_1_with_one_sentence(cli: CliRunner, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    path = docs_profile(tmp_path, url)
    result = cli.invoke(app, ["mcp", "pin", "warranty", "--profiles", str(path)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"error: the MCP server warranty ({url}) did not answer (ConnectError); start it, "
        "or fix its url or command\n"
    )


def test_a_server_or_agent_the_profile_does_not_declare_exits_2(
    cli: CliRunner, tmp_path: Path
) -> None:
    path = docs_profile(tmp_path, DOCS_URL)
    unknown = cli.invoke(app, ["mcp", "pin", "billing", "--profiles", str(path)])
    assert (unknown.exit_code, unknown.stderr) == (
        2,
        f"error: {path}: no agent declares an MCP server 'billing'; declared: warranty\n",
    )
    no_agent = cli.invoke(
        app, ["mcp", "tools", "warranty", "--profiles", str(path), "--agent", "x"]
    )
    assert (no_agent.exit_code, no_agent.stderr) == (
        2,
        f"error: {path}: no agent 'x' in this profile; agents: support\n",
    )


def test_the_docs_exposure_declaration_checks_and_its_tool_is_offered(
    cli: CliRunner, tmp_path: Path, mcp_server: RunningServer
) -> None:
    """docs/configuration/mcp.md's **Money**: its `issue_voucher` with an exposure, added
    to the page's profile, is a valid profile, and the server offers the tool."""
    section = docs_page()
    money = section[section.index("**Money**") :]
    start = money.index("```toml\n") + len("```toml\n")
    declaration = money[start : money.index("\n```\n", start)]
    assert 'exposure = { amount = "amount", currency = "EUR" }' in declaration
    path = docs_profile(tmp_path, mcp_server.url)
    pin = pin_of(advertised_now(mcp_server.url))
    pinned = path.read_text().replace(DOCS_PIN_LINE, f'pin = "{pin}"  #')
    path.write_text(f"{pinned}\n{declaration}\n")
    checked = cli.invoke(app, ["profiles", "check", str(path)])
    assert checked.exit_code == 0, checked.output
    offered = cli.invoke(app, ["mcp", "tools", "warranty", "--profiles", str(path)])
    assert offered.exit_code == 0, offered.output
    assert "  warranty__issue_voucher (irreversible, approval confirm)" in offered.stdout
    # The same declaration naming an argument the tool does not take is refused.
    path.write_text(path.read_text().replace('amount = "amount"', 'amount = "value"'))
    refused = cli.invoke(app, ["mcp", "tools", "warranty", "--profiles", str(path)])
    assert refused.exit_code == 1
