"""What each declared MCP server offers a run: its declared tools, or the reason for none.

Fail closed, in this order: a server with no pin, a server whose advertised tools no
longer match its pin, a declared tool the server does not advertise, and a declared
tool whose description fails the linter each make the whole server offer nothing. A
tool the server advertises and the profile does not declare is never offered. Whatever
the server's text says, the risk and approval of an offered tool are the profile's.

Each refusal is logged as a warning naming the server (and both pins), so that the
worker's log says why a tool is missing; the `McpResolution` says it to the run.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping

import anyio

from activities.mcp.failures import is_unreachable, leaves
from activities.mcp.pin import AdvertisedTool, pin_of
from activities.mcp.session import advertised_tools, connected
from workflows.mcp_tools import McpResolution, McpServer, McpServerTools, McpToolOffer
from workflows.tool_description_lint import description_problems

logger = logging.getLogger(__name__)
# Every turn of a run carries its tools' descriptions: a longer one is context stuffing,
# not documentation (the built-in tools' are under 700 characters).
MAX_DESCRIPTION_CHARS = 2000


def _description_problems(description: str | None) -> list[str]:
    text = description or ""
    if len(text) > MAX_DESCRIPTION_CHARS:
        return [f"it has {len(text)} characters; at most {MAX_DESCRIPTION_CHARS}"]
    return description_problems(text)


def server_tools(name: str, server: McpServer, advertised: list[AdvertisedTool]) -> McpServerTools:
    """The decision for one server, from what it advertises now (pure)."""
    now = pin_of(advertised)
    command = f"`signoff mcp pin {name}`"
    if server.pin is None:
        return McpServerTools(
            server=name,
            status="unpinned",
            message=(
                f"the profile gives no pin for this server; review its tools with {command} "
                "and add the pin"
            ),
            advertised=now,
        )
    if server.pin != now:
        return McpServerTools(
            server=name,
            status="pin_mismatch",
            message=(
                f"its advertised tools changed since they were pinned (pin {server.pin}, now "
                f"{now}); none of its tools is offered until an operator reviews them with "
                f"{command} and accepts the new pin"
            ),
            pinned=server.pin,
            advertised=now,
        )
    by_name = {tool.name: tool for tool in advertised}
    missing = [tool for tool in server.tools if tool not in by_name]
    if missing:
        return McpServerTools(
            server=name,
            status="missing_tool",
            message=f"declared but not advertised by the server: {', '.join(missing)}",
            pinned=server.pin,
            advertised=now,
        )
    unknown_arguments = [
        f"{tool}.{argument}"
        for tool, policy in server.tools.items()
        for named in policy.named_arguments().values()
        for argument in named
        if argument not in by_name[tool].input_schema.get("properties", {})
    ]
    if unknown_arguments:
        return McpServerTools(
            server=name,
            status="missing_tool",
            message=(
                "the policy (editable, exposure, card, reason or category) names arguments "
                f"the tool does not take: {', '.join(unknown_arguments)}"
            ),
            pinned=server.pin,
            advertised=now,
        )
    problems = [
        f"{tool}: {'; '.join(_description_problems(by_name[tool].description))}"
        for tool in server.tools
        if _description_problems(by_name[tool].description)
    ]
    if problems:
        return McpServerTools(
            server=name,
            status="lint_failed",
            message=f"a declared tool's description fails the linter: {' | '.join(problems)}",
            pinned=server.pin,
            advertised=now,
        )
    return McpServerTools(
        server=name,
        status="offered",
        message="",
        pinned=server.pin,
        advertised=now,
        offered=tuple(
            McpToolOffer(
                server=name,
                name=tool,
                description=by_name[tool].description or "",
                input_schema=by_name[tool].input_schema,
                policy=policy,
            )
            for tool, policy in server.tools.items()
        ),
    )


async def fetch_advertised(server: McpServer, timeout: float) -> list[AdvertisedTool]:
    """The server's tools now; raises what the exchange raised (see failures.py)."""
    with anyio.fail_after(timeout):
        async with connected(server, timeout) as session:
            return await advertised_tools(session)


async def resolve_server(name: str, server: McpServer, timeout: float) -> McpServerTools:
    try:
        advertised = await fetch_advertised(server, timeout)
    except Exception as error:
        reference = uuid.uuid4().hex[:8]
        kind = type(leaves(error)[0]).__name__
        unreachable = is_unreachable(error)
        logger.warning(
            "MCP server %s (%s): %s, offers no tools (reference %s)",
            name,
            server.transport(),
            "unreachable" if unreachable else "answered something malformed",
            reference,
            exc_info=not unreachable,
        )
        why = "did not answer" if unreachable else "answered something that is not MCP"
        return McpServerTools(
            server=name,
            status="down",
            message=(
                f"the server {why} ({kind}, reference {reference}); none of its tools is offered"
            ),
            pinned=server.pin,
        )
    decided = server_tools(name, server, advertised)
    if decided.status != "offered":
        logger.warning("MCP server %s offers no tools: %s", name, decided.message)
    return decided


async def resolve_servers(servers: Mapping[str, McpServer], timeout: float) -> McpResolution:
    """Each declared server, one after the other: a run offers what this returns."""
    return McpResolution(
        servers=tuple(
            [await resolve_server(name, server, timeout) for name, server in servers.items()]
        )
    )
