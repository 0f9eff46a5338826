"""What declared servers offer, asked of a real MCP server over streamable HTTP and
stdio: a pinned server offers its declared tools; one that changed its tools, or is
down, offers none, and the worker's log says why."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from activities.mcp.resolve import resolve_server, resolve_servers
from signoff.config.profiles import load_profile_file
from signoff.service.mcp_servers import startup_report
from tests.mcp.conftest import (
    TIMEOUT_SECONDS,
    RunningServer,
    declared,
    mcp_server_process,
    stdio_command,
)
from tests.postgres import free_port


async def pin_of_server(url: str) -> str:
    unpinned = await resolve_server("warranty", declared(url=url), TIMEOUT_SECONDS)
    assert unpinned.advertised is not None
    return unpinned.advertised


async def test_a_pinned_server_offers_its_declared_tools(mcp_server: RunningServer) -> None:
    pin = await pin_of_server(mcp_server.url)
    resolution = await resolve_servers(
        {"warranty": declared(url=mcp_server.url, pin=pin)}, TIMEOUT_SECONDS
    )
    assert [offer.offered_name for offer in resolution.offers()] == [
        "warranty__lookup_warranty",
        "warranty__create_return_label",
        "warranty__check_recall",
        "warranty__garbled_lookup",
    ]


async def test_the_stdio_transport_offers_the_same_tools_under_the_same_pin(
    mcp_server: RunningServer, tmp_path: Path
) -> None:
    pin = await pin_of_server(mcp_server.url)
    server = declared(command=stdio_command(tmp_path), pin=pin)
    decided = await resolve_server("warranty", server, TIMEOUT_SECONDS)
    assert (decided.status, decided.advertised) == ("offered", pin)
    assert len(decided.offered) == 4


async def test_a_server_that_changed_its_tools_offers_none_and_the_log_says_so(
    mcp_server: RunningServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pin = await pin_of_server(mcp_server.url)
    caplog.clear()
    with mcp_server_process(tmp_path, "--changed") as changed:
        with caplog.at_level(logging.WARNING, logger="activities.mcp"):
            resolution = await resolve_servers(
                {"warranty": declared(url=changed.url, pin=pin)}, TIMEOUT_SECONDS
            )
    [decided] = resolution.servers
    assert (decided.status, resolution.offers(), decided.pinned) == ("pin_mismatch", (), pin)
    assert decided.advertised not in (None, pin)
    [record] = [r for r in caplog.records if r.name == "activities.mcp.resolve"]
    assert record.getMessage() == f"MCP server warranty offers no tools: {decided.message}"
    assert pin in record.getMessage() and str(decided.advertised) in record.getMessage()


async def test_a_server_that_is_down_offers_none(caplog: pytest.LogCaptureFixture) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with caplog.at_level(logging.WARNING, logger="activities.mcp"):
        decided = await resolve_server("warranty", declared(url=url, pin="0" * 64), 5.0)
    assert (decided.status, decided.offered, decided.advertised) == ("down", (), None)
    assert decided.message.startswith("the server did not answer (ConnectError, reference ")
    assert f"MCP server warranty ({url}): unreachable, offers no tools" in caplog.text


async def test_a_stdio_command_that_does_not_exist_is_down(tmp_path: Path) -> None:
    server = declared(command=(str(tmp_path / "no-such-server"),), pin="0" * 64)
    decided = await resolve_server("warranty", server, 5.0)
    assert (decided.status, decided.offered) == ("down", ())


async def test_the_worker_says_at_start_what_each_server_offers(
    mcp_server: RunningServer, tmp_path: Path
) -> None:
    pin = await pin_of_server(mcp_server.url)
    down = f"http://127.0.0.1:{free_port()}/mcp"
    path = tmp_path / "profiles.toml"
    path.write_text(
        "[agents.support]\n"
        'system_prompt = "Answer the ticket."\n'
        'tools = ["read_ticket"]\n'
        'model = { provider = "scripted" }\n'
        'budgets.default = { steps = 8, tokens = 1000, deadline = "2h" }\n'
        f'mcp_servers.warranty = {{ url = "{mcp_server.url}", pin = "{pin}", '
        'tools = { lookup_warranty = { risk = "read" } } }\n'
        f'mcp_servers.billing = {{ url = "{down}", pin = "{pin}" }}\n'
    )
    lines = await startup_report(load_profile_file(path).profiles, TIMEOUT_SECONDS)
    assert lines[0] == "MCP server warranty (agent support): offers warranty__lookup_warranty"
    assert lines[1].startswith(
        "MCP server billing (agent support): offers no tools (down): the server did not "
        "answer (ConnectError, reference "
    )
    assert len(lines) == 2
