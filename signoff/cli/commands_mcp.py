"""`signoff mcp pin SERVER` and `signoff mcp tools SERVER`: review a declared MCP server's
tools and pin, and see what a run would be offered from it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from signoff.cli.support import EXIT_RUN_FAILED, fail, run_async, say, settings
from signoff.config.profiles import ProfileError, load_profile_file, load_profiles
from signoff.service.mcp_servers import (
    DeclaredServer,
    ServerDown,
    UnknownServer,
    declared_server,
    offered_tools,
    review_pin,
)

mcp = typer.Typer(help="MCP servers: review a server's tools and pin; see what it offers.")

ServerArgument = Annotated[str, typer.Argument(help="The server's name in the profile.")]
ProfilesOption = Annotated[
    Path | None,
    typer.Option("--profiles", help="The profile file (default: what a worker would load)."),
]
AgentOption = Annotated[
    str | None, typer.Option(help="The agent, when several declare the server differently.")
]


def register(app: typer.Typer) -> None:
    app.add_typer(mcp, name="mcp")


def _declared(server: str, profiles: Path | None, agent: str | None) -> DeclaredServer:
    try:
        loaded = load_profile_file(profiles) if profiles is not None else load_profiles(settings())
    except ProfileError as error:
        fail(str(error))
    try:
        return declared_server(loaded.profiles, server, agent)
    except UnknownServer as error:
        fail(f"{loaded.source}: {error}")


@mcp.command("pin")
def pin_command(
    server: ServerArgument, profiles: ProfilesOption = None, agent: AgentOption = None
) -> None:
    """Connect to a declared server; print its pin and the tools it covers, for review."""
    declared = _declared(server, profiles, agent)
    try:
        review = run_async(review_pin(declared, settings().mcp_timeout_seconds))
    except ServerDown as error:
        fail(str(error), EXIT_RUN_FAILED)
    pinned = declared.server.pin
    say(f"MCP server {server} ({declared.server.transport()}), agent {declared.agent}")
    say(f"pin {review.pin}")
    if pinned == review.pin:
        say("the profile's pin matches: nothing changed")
    else:
        say(
            "the profile gives no pin" if pinned is None else f"the profile's pin differs: {pinned}"
        )
        say(
            f'to accept these tools, review them below, then set pin = "{review.pin}" in '
            f"[agents.{declared.agent}.mcp_servers.{server}]"
        )
    say(f"tools it covers ({len(review.tools)}):")
    for reviewed in review.tools:
        tool = reviewed.tool
        if reviewed.declared:
            policy = declared.server.tools[tool.name]
            status = f"declared, {policy.risk}, approval {policy.approval}"
        else:
            status = "not declared: never offered"
        say(f"  {tool.name} ({status})")
        say(f"    description: {tool.description!r}")
        say(f"    input schema: {json.dumps(tool.input_schema, sort_keys=True)}")
        for problem in reviewed.problems:
            say(f"    linter: {problem}")


@mcp.command("tools")
def tools_command(
    server: ServerArgument, profiles: ProfilesOption = None, agent: AgentOption = None
) -> None:
    """Show what a run would be offered from a declared server now, or why nothing."""
    declared = _declared(server, profiles, agent)
    resolved = run_async(offered_tools(declared, settings().mcp_timeout_seconds))
    if resolved.status != "offered":
        fail(
            f"MCP server {server} offers no tools ({resolved.status}): {resolved.message}",
            EXIT_RUN_FAILED,
        )
    say(f"MCP server {server}: pin matches; offered to agent {declared.agent}:")
    for offer in resolved.offered:
        say(f"  {offer.offered_name} ({offer.risk}, approval {offer.approval})")
