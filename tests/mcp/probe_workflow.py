"""A workflow that only calls the MCP call activity, as the run will: Temporal's retry
policy, not the connector, decides how often a server that is down is tried again."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

from workflows.contracts import ToolResult
from workflows.mcp_tools import RUN_MCP_TOOL_ACTIVITY, McpToolCall

PROBE_ATTEMPTS = 3


@workflow.defn(name="McpCallProbe")
class McpCallProbe:
    @workflow.run
    async def run(self, request: McpToolCall) -> str:
        try:
            result = await workflow.execute_activity(
                RUN_MCP_TOOL_ACTIVITY,
                request,
                result_type=ToolResult,
                start_to_close_timeout=timedelta(seconds=60),
                retry_policy=RetryPolicy(
                    initial_interval=timedelta(seconds=1), maximum_attempts=PROBE_ATTEMPTS
                ),
            )
        except ActivityError as error:
            cause = error.cause
            kind = cause.type if isinstance(cause, ApplicationError) else type(cause).__name__
            state = error.retry_state.name if error.retry_state is not None else "none"
            return f"failed after retries: {state} {kind}"
        return f"answered: is_error={result.is_error}"
