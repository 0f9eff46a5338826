"""The model turn: one `model_turn` activity call with the conversation so far.

The request names the actor only by a hash (`actor_hash`), never a name or email. A
call that fails after every retry ends the run (`model_error`) with a detail that says
whether the model refused the request, timed out or kept failing; a cancellation the
SDK reports as an `ActivityError` goes through as a cancellation, never as a failed
model call, or the run would ask the model again.

This is workflow code: no I/O; the activity talks to the model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.exceptions import TimeoutError as TemporalTimeoutError

with workflow.unsafe.imports_passed_through():
    from workflows import policy
    from workflows.cancellation import reraise_cancellation
    from workflows.contracts import (
        MODEL_TURN_ACTIVITY,
        Message,
        ModelReply,
        ModelRequest,
        RunRequest,
    )
    from workflows.limit_contracts import RunLimitsRequest
    from workflows.run_budgets import RunEnded
    from workflows.run_tools import built_in_prompt
    from workflows.tool_spec import ToolSpec


def actor_hash(tenant_id: str, actor_id: str) -> str:
    """Stands for the actor in model metadata: stable, and never a name or email."""
    digest = hashlib.sha256(f"{tenant_id}:{actor_id}".encode())
    return digest.hexdigest()[:32]


async def ask_model(
    request: RunRequest,
    messages: list[Message],
    more_tools: Sequence[ToolSpec] = (),
    limits_for: RunLimitsRequest | None = None,
) -> ModelReply:
    """The model's reply to the conversation, or RunEnded("model_error"); `more_tools`
    are offered after the run's own (its MCP servers' tools); `limits_for` asks the
    worker for its limits on the run with the reply (run_limits.py)."""
    system, tools = built_in_prompt(request)
    model_request = ModelRequest(
        model=request.model,
        system=system,
        messages=list(messages),
        tools=[*tools, *more_tools],
        prompt_digest=request.prompt_digest,
        max_tokens=request.max_tokens,
        user_hash=actor_hash(request.tenant_id, request.actor_id),
        thinking_budget_tokens=request.thinking_budget_tokens,
        limits_for=limits_for,
    )
    try:
        reply: ModelReply = await workflow.execute_activity(
            MODEL_TURN_ACTIVITY,
            model_request,
            result_type=ModelReply,
            start_to_close_timeout=policy.MODEL_TURN_TIMEOUT,
            heartbeat_timeout=policy.MODEL_TURN_HEARTBEAT,
            retry_policy=RetryPolicy(
                initial_interval=timedelta(seconds=2),
                maximum_interval=timedelta(minutes=1),
                maximum_attempts=policy.MODEL_TURN_MAX_ATTEMPTS,
            ),
        )
    except ActivityError as error:
        reraise_cancellation(error)
        raise RunEnded("failed", "model_error", model_error_detail(error)) from None
    return reply


def model_error_detail(error: ActivityError) -> str:
    cause = error.cause
    if isinstance(cause, ApplicationError):
        return f"The model call failed: {cause.message}"
    if isinstance(cause, TemporalTimeoutError):
        return "The model did not answer in time, after every retry."
    return "The model call failed after every retry."
