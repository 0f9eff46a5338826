"""A turn's tool calls: the `run_tool` activity, and when failing tools end a run.

A reversible tool runs as one `run_tool` activity with an idempotency key made of the
run, the tool and the call. A tool that times out or keeps failing becomes an error
result the model can read (`unavailable`). `ToolFailures` ends a run whose model
repeats a call that already failed, or whose turns keep bringing only failing calls:
another turn would spend tokens for the same error.

This is workflow code: no I/O; the activity runs the tool.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from workflows import policy
    from workflows.contracts import (
        RUN_TOOL_ACTIVITY,
        RunRequest,
        ToolCallInput,
        ToolResult,
        ToolResultBlock,
        ToolUseBlock,
    )
    from workflows.run_budgets import RunEnded
    from workflows.run_tools import profile_names, tool_policy
    from workflows.tool_policy import call_timeout


async def call_tool(call: ToolUseBlock, request: RunRequest) -> ToolResult:
    """One reversible tool call; raises ActivityError when the tool did not answer."""
    result: ToolResult = await workflow.execute_activity(
        RUN_TOOL_ACTIVITY,
        ToolCallInput(
            run_id=workflow.info().workflow_id,
            tenant_id=request.tenant_id,
            ticket_id=request.ticket_id,
            tool_use_id=call.id,
            name=call.name,
            arguments=call.input,
            idempotency_key=f"{workflow.info().workflow_id}:{call.name}:{call.id}",
            **profile_names(request),
        ),
        result_type=ToolResult,
        start_to_close_timeout=call_timeout(
            tool_policy(request, call.name), policy.TOOL_CALL_TIMEOUT
        ),
        retry_policy=RetryPolicy(maximum_attempts=policy.TOOL_CALL_MAX_ATTEMPTS),
    )
    return result


def unavailable(call: ToolUseBlock) -> str:
    return (
        f"The tool '{call.name}' did not answer: it timed out or kept failing. "
        "It returned no data; answer without it or say that it is unavailable."
    )


def call_signature(call: ToolUseBlock) -> str:
    return call.name + json.dumps(call.input, sort_keys=True, separators=(",", ":"))


@dataclass
class ToolFailures:
    """The calls that failed so far, and how many turns in a row failed entirely."""

    signatures: set[str] = field(default_factory=set)
    consecutive_error_turns: int = 0

    def repeated(
        self, calls: Sequence[ToolUseBlock], results: Sequence[ToolResultBlock]
    ) -> str | None:
        """The name of a failing call this turn that had already failed, if any."""
        repeated: str | None = None
        for call, result in zip(calls, results, strict=True):
            if result.is_error:
                signature = call_signature(call)
                if signature in self.signatures:
                    repeated = call.name
                self.signatures.add(signature)
        return repeated

    def check(self, repeated: str | None, results: Sequence[ToolResultBlock]) -> None:
        """Raise RunEnded when a failed call came back, or too many turns only failed."""
        if repeated is not None:
            raise RunEnded(
                "failed",
                "repeated_failing_call",
                f"The model repeated a call to '{repeated}' that had already failed.",
            )
        all_failed = all(result.is_error for result in results)
        self.consecutive_error_turns = self.consecutive_error_turns + 1 if all_failed else 0
        if self.consecutive_error_turns >= policy.MAX_CONSECUTIVE_ERROR_TURNS:
            raise RunEnded(
                "failed",
                "repeated_tool_errors",
                f"{self.consecutive_error_turns} turns in a row had only failing tool calls.",
            )
