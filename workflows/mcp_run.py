"""A run's MCP tools: which the declared servers offer, a read, and the gate's hooks.

At the start of a run whose agent declares MCP servers, one activity asks each server
what it advertises (`resolve_mcp_tools`): only the declared tools of a server whose pin
matches are offered, with the profile's policy; a server that offers nothing is named
in the run's trajectory with why. Both MCP activities take names (the run's profile
hash, its agent, the server and the tool), never a declaration: the worker reaches the
servers its own profile declares and judges a tool's risk by it. The answer is in the
run's history, so the run keeps its offer for its life. A read runs in `run_mcp_tool`;
an irreversible call goes through the gate like any tool (`McpHooks`), its effect
carried out by `execute_tool_action` with the action's idempotency key in the call's
`_meta`.

An MCP tool's arguments have no pydantic model here: the reviewer sees each one as
JSON (a string in quotes), exactly what is sent, and the server checks them.

This is workflow code: activities by name, explicit timeouts, bounded retries.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from workflows import policy as limits
    from workflows.contracts import RunRequest, ToolResult, ToolUseBlock
    from workflows.gate_hooks import Prepared
    from workflows.mcp_tools import (
        RESOLVE_MCP_TOOLS_ACTIVITY,
        RUN_MCP_TOOL_ACTIVITY,
        McpResolution,
        McpResolveInput,
        McpToolCall,
        McpToolOffer,
        shown_arguments,
    )
    from workflows.tool_gate import NO_STATE, ToolHooks, declared_exposure, declared_reason
    from workflows.tool_policy import call_timeout

# Listing every declared server's tools: each is one connection, in parallel.
RESOLVE_TIMEOUT = timedelta(minutes=2)
RESOLVE_ATTEMPTS = 3


async def resolve(request: RunRequest) -> McpResolution | None:
    """What the run's declared MCP servers offer; None for an agent that declares none."""
    profile = request.profile
    if profile is None or not profile.agent.mcp_servers:
        return None
    resolution: McpResolution = await workflow.execute_activity(
        RESOLVE_MCP_TOOLS_ACTIVITY,
        McpResolveInput(profile_hash=profile.content_hash, agent_name=profile.agent_name),
        result_type=McpResolution,
        start_to_close_timeout=RESOLVE_TIMEOUT,
        retry_policy=RetryPolicy(maximum_attempts=RESOLVE_ATTEMPTS),
    )
    return resolution


def mcp_call(request: RunRequest, offer: McpToolOffer, call: ToolUseBlock) -> McpToolCall:
    assert request.profile is not None  # an offer comes from the profile's servers
    return McpToolCall(
        run_id=workflow.info().workflow_id,
        tenant_id=request.tenant_id,
        ticket_id=request.ticket_id,
        tool_use_id=call.id,
        idempotency_key=f"{workflow.info().workflow_id}:{call.name}:{call.id}",
        profile_hash=request.profile.content_hash,
        agent_name=request.profile.agent_name,
        server_name=offer.server,
        tool=offer.name,
        arguments=call.input,
    )


async def run_read(request: RunRequest, offer: McpToolOffer, call: ToolUseBlock) -> ToolResult:
    """One read of an MCP tool; raises ActivityError when the server never answered."""
    result: ToolResult = await workflow.execute_activity(
        RUN_MCP_TOOL_ACTIVITY,
        mcp_call(request, offer, call),
        result_type=ToolResult,
        start_to_close_timeout=call_timeout(offer.policy, limits.TOOL_CALL_TIMEOUT),
        retry_policy=RetryPolicy(maximum_attempts=limits.TOOL_CALL_MAX_ATTEMPTS),
    )
    return result


class McpHooks(ToolHooks):
    """An irreversible MCP tool: the generic tool's hooks, its arguments shown as JSON."""

    def __init__(self, request: RunRequest, offer: McpToolOffer) -> None:
        super().__init__(request, offer.offered_name, offer.policy)
        self.noun = f"call to {offer.offered_name}"

    async def prepare(self, call: ToolUseBlock) -> Prepared:
        arguments = shown_arguments(call.input)
        exposure, problem = declared_exposure(self.policy, arguments)
        return Prepared(
            arguments=arguments,
            targets={"tenant_id": self.request.tenant_id, "ticket_id": self.request.ticket_id},
            reason=declared_reason(self.policy, arguments),
            state=NO_STATE,
            exposure=exposure,
            problem=problem,
        )
