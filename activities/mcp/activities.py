"""The MCP connector's two activities: what the declared servers offer, and one read.

An unreachable server makes the call activity raise a retryable `ApplicationError`
(Temporal's retry policy bounds the attempts; the workflow then tells the model the
tool did not answer). Everything else the server does becomes a `ToolResult`.

The call activity runs read tools only. Anyone may call an activity, so an
irreversible MCP tool runs only through the gate's effect, which verifies its proofs
itself and then calls `activities.mcp.call.call_tool` (as the tool gateway refuses an
irreversible built-in or Python tool).

The `mcp` SDK (about 30 MiB of a worker's memory, with the HTTP server stack it brings)
is imported by the first activity that reaches a server, never by a worker whose
profiles declare none: both activities import the connector when they run.
"""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError

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
    def __init__(self, timeout_seconds: float) -> None:
        self._timeout = timeout_seconds

    @activity.defn(name=RESOLVE_MCP_TOOLS_ACTIVITY)
    async def resolve(self, request: McpResolveInput) -> McpResolution:
        from activities.mcp.resolve import resolve_servers

        return await resolve_servers(request.servers, self._timeout)

    @activity.defn(name=RUN_MCP_TOOL_ACTIVITY)
    async def run(self, request: McpToolCall) -> ToolResult:
        policy = request.server.tools.get(request.tool)
        if policy is not None and policy.risk != "read":
            return ToolResult(
                tool_use_id=request.tool_use_id,
                content=(
                    f"The tool '{offered_name(request.server_name, request.tool)}' is "
                    "irreversible: it runs only after a reviewer's decision, through the "
                    "gate. It was not called."
                ),
                is_error=True,
            )
        from activities.mcp.call import McpServerUnavailable, call_tool

        try:
            return await call_tool(request, self._timeout)
        except McpServerUnavailable as error:
            # Retryable: the server is out of reach, not wrong. The message names the
            # server and the kind of failure only.
            raise ApplicationError(str(error), type="McpServerUnavailable") from None
