"""What an operator does with a declared MCP server: review its tools and their pin, and
see what a run would be offered. Both ask the server itself, as a worker does.

The connector (and with it the `mcp` SDK, about 30 MiB) is imported by the functions
that reach a server: a worker's start imports this module for `startup_report`, and a
worker whose profiles declare no server must not load the SDK.
"""

from __future__ import annotations

from dataclasses import dataclass

from activities.mcp.pin import AdvertisedTool, pin_of
from workflows.mcp_tools import McpServer, McpServerTools
from workflows.profile_contracts import ProfileSet
from workflows.tool_description_lint import description_problems


class UnknownServer(Exception):
    """No agent of the profile declares the server, or several declare it differently."""


class ServerDown(Exception):
    """The server did not answer, or answered something that is not MCP."""


@dataclass(frozen=True)
class DeclaredServer:
    agent: str
    name: str
    server: McpServer


@dataclass(frozen=True)
class ReviewedTool:
    tool: AdvertisedTool
    declared: bool
    problems: tuple[str, ...]  # the linter's, for a declared tool


@dataclass(frozen=True)
class PinReview:
    declared: DeclaredServer
    pin: str
    tools: tuple[ReviewedTool, ...]


def declared_server(profiles: ProfileSet, name: str, agent: str | None = None) -> DeclaredServer:
    agents = {agent} if agent is not None else set(profiles.agents)
    found = [
        DeclaredServer(agent_name, name, profile.mcp_servers[name])
        for agent_name, profile in profiles.agents.items()
        if agent_name in agents and name in profile.mcp_servers
    ]
    if agent is not None and agent not in profiles.agents:
        raise UnknownServer(
            f"no agent {agent!r} in this profile; agents: {', '.join(profiles.agents)}"
        )
    if not found:
        names = sorted(
            {server for profile in profiles.agents.values() for server in profile.mcp_servers}
        )
        raise UnknownServer(
            f"no agent declares an MCP server {name!r}; declared: {', '.join(names) or 'none'}"
        )
    if any(item.server != found[0].server for item in found):
        raise UnknownServer(
            f"agents {', '.join(item.agent for item in found)} declare {name!r} differently; "
            "name one with --agent"
        )
    return found[0]


async def review_pin(declared: DeclaredServer, timeout: float) -> PinReview:
    """The server's pin now and every tool it covers, each marked declared or not."""
    from activities.mcp.failures import is_unreachable, leaves
    from activities.mcp.resolve import fetch_advertised

    try:
        advertised = await fetch_advertised(declared.server, timeout)
    except Exception as error:
        why = "did not answer" if is_unreachable(error) else "answered something that is not MCP"
        raise ServerDown(
            f"the MCP server {declared.name} ({declared.server.transport()}) {why} "
            f"({type(leaves(error)[0]).__name__}); start it, or fix its url or command"
        ) from None
    tools = tuple(
        ReviewedTool(
            tool=tool,
            declared=tool.name in declared.server.tools,
            problems=tuple(description_problems(tool.description or ""))
            if tool.name in declared.server.tools
            else (),
        )
        for tool in sorted(advertised, key=lambda tool: tool.name)
    )
    return PinReview(declared=declared, pin=pin_of(advertised), tools=tools)


async def offered_tools(declared: DeclaredServer, timeout: float) -> McpServerTools:
    """What a run of the agent would be offered from this server now, or why nothing."""
    from activities.mcp.resolve import resolve_server

    return await resolve_server(declared.name, declared.server, timeout)


async def startup_report(profiles: ProfileSet, timeout: float) -> list[str]:
    """One line per declared server, for the worker's start: what it offers, or why not.
    A run asks again before it offers tools; this only tells the operator early."""
    lines = []
    for agent_name, agent in profiles.agents.items():
        for name, server in agent.mcp_servers.items():
            from activities.mcp.resolve import resolve_server  # a server is declared

            decided = await resolve_server(name, server, timeout)
            what = (
                f"offers {', '.join(offer.offered_name for offer in decided.offered) or 'nothing'}"
                if decided.status == "offered"
                else f"offers no tools ({decided.status}): {decided.message}"
            )
            lines.append(f"MCP server {name} (agent {agent_name}): {what}")
    return lines
