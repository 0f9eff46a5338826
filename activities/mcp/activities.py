"""The MCP connector's two activities: what the declared servers offer, and one read.

Both take names, never declarations (activities/held_profiles.py): the run's profile
hash and agent, and for a call the server and the tool. What a server is (its URL, or
the program a stdio server runs) and what a tool is (its risk, its policy) come from the
profile file this worker loaded. So a workflow of someone else's that calls them by
name reaches only the servers the team declared and pinned, and a tool the worker's
profile calls irreversible is never run as a read, whatever the call says.

An unreachable server, or a profile this worker does not hold, makes an activity raise
a retryable `ApplicationError` (Temporal's retry policy bounds the attempts; the
workflow then tells the model the tool did not answer). Everything else the server
does becomes a `ToolResult`. A call refused for what it asked (an undeclared or
irreversible tool, a profile not held) is on the audit (activities/store/
activity_refusals.py), naming the workflow that called.

The call activity runs read tools only. An irreversible MCP tool runs only through the
gate's effect, which verifies its proofs itself and then calls
`activities.mcp.call.call_tool` (as the tool gateway refuses an irreversible built-in
or Python tool).

The `mcp` SDK (about 30 MiB of a worker's memory, with the HTTP server stack it brings)
is imported by the first activity that reaches a server, never by a worker whose
profiles declare none: both activities import the connector when they run.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.caller import caller_run_id
from activities.held_profiles import HeldProfiles, ProfileNotHeld
from activities.store.activity_refusals import record_refusal
from workflows.contracts import ToolResult
from workflows.mcp_tools import (
    RESOLVE_MCP_TOOLS_ACTIVITY,
    RUN_MCP_TOOL_ACTIVITY,
    McpResolution,
    McpResolveInput,
    McpToolCall,
    offered_name,
)


class McpTools:
    """`profiles` are the worker's own (the only declarations it uses); refusals are
    written to the audit in `engine`'s store."""

    def __init__(self, timeout_seconds: float, profiles: HeldProfiles, engine: Engine) -> None:
        self._timeout = timeout_seconds
        self._profiles = profiles
        self._engine = engine

    @activity.defn(name=RESOLVE_MCP_TOOLS_ACTIVITY)
    async def resolve(self, request: McpResolveInput) -> McpResolution:
        try:
            agent = self._profiles.agent(request.profile_hash, request.agent_name)
        except ProfileNotHeld as error:
            activity.logger.warning("resolve_mcp_tools refused: %s", error)
            # Retryable: another worker of a rolling change may hold the profile.
            raise ApplicationError(str(error), type="ProfileNotHeld") from None
        from activities.mcp.resolve import resolve_servers

        return await resolve_servers(agent.mcp_servers, self._timeout)

    @activity.defn(name=RUN_MCP_TOOL_ACTIVITY)
    async def run(self, request: McpToolCall) -> ToolResult:
        name = offered_name(request.server_name, request.tool)
        try:
            agent = self._profiles.agent(request.profile_hash, request.agent_name)
        except ProfileNotHeld as error:
            await self._refused(request, str(error))
            # Retryable: another worker of a rolling change may hold the profile.
            raise ApplicationError(str(error), type="ProfileNotHeld") from None
        server = agent.mcp_servers.get(request.server_name)
        policy = None if server is None else server.tools.get(request.tool)
        if server is None or policy is None:
            why = (
                f"The tool '{name}' is not declared for agent '{request.agent_name}' in this "
                "worker's profile, so it was not called. Do not retry; answer without it."
            )
            return await self._refusal(request, why)
        if policy.risk != "read":
            why = (
                f"The tool '{name}' is irreversible: it runs only after a reviewer's "
                "decision, through the gate. It was not called."
            )
            return await self._refusal(request, why)
        from activities.mcp.call import McpServerUnavailable, McpTarget, call_tool

        target = McpTarget(
            run_id=request.run_id,
            tool_use_id=request.tool_use_id,
            idempotency_key=request.idempotency_key,
            server_name=request.server_name,
            server=server,
            tool=request.tool,
            arguments=request.arguments,
        )
        try:
            return await call_tool(target, self._timeout)
        except McpServerUnavailable as error:
            # Retryable: the server is out of reach, not wrong. The message names the
            # server and the kind of failure only.
            raise ApplicationError(str(error), type="McpServerUnavailable") from None

    async def _refusal(self, request: McpToolCall, why: str) -> ToolResult:
        await self._refused(request, why)
        return ToolResult(tool_use_id=request.tool_use_id, content=why, is_error=True)

    async def _refused(self, request: McpToolCall, why: str) -> None:
        caller = caller_run_id()
        activity.logger.warning("run_mcp_tool refused (caller %s): %s", caller, why)
        await asyncio.to_thread(
            record_refusal,
            self._engine,
            tenant_id=request.tenant_id,
            run_id=request.run_id,
            ticket_id=request.ticket_id,
            activity=RUN_MCP_TOOL_ACTIVITY,
            what=f"{offered_name(request.server_name, request.tool)} for agent "
            f"'{request.agent_name}' of profile {request.profile_hash[:64]}",
            why=why,
            caller_run_id=caller,
        )
