"""What the conformance tests expect on the wire, written out by hand, and a runner.

The expected bodies are built here from the Messages API's documented shape, not with
the adapter's own functions, so that a change in the adapter shows up as a diff
against this file.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from temporalio import activity
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from activities.held_profiles import HeldProfiles
from activities.model_turn import ModelTurns
from activities.tool_gateway import ToolGateway
from signoff.config.profiles import BUILTIN_PROFILES, load_profile_file
from signoff.config.settings import Settings
from tests.workflow.fakes import (
    ToolActivities,
    new_task_queue,
    replay,
    run_request,
    start,
    worker,
)
from workflows import policy
from workflows.agent_run import actor_hash, opening_message
from workflows.contracts import (
    MODEL_TURN_ACTIVITY,
    RUN_TOOL_ACTIVITY,
    ModelRef,
    RunOutcome,
    RunRequest,
    ToolCallInput,
    ToolResult,
    ToolSpec,
)
from workflows.tool_catalog import offered_tools

# The default model: the SDK warns on a deprecated id, and warnings are errors here.
CLAUDE = ModelRef(provider="anthropic", model_id=Settings.model_fields["anthropic_model"].default)
EPHEMERAL = {"type": "ephemeral"}
Json = dict[str, Any]


@dataclass
class Run:
    request: RunRequest
    outcome: RunOutcome
    handle: WorkflowHandle[Any, Any]


async def run_claude(
    env: WorkflowEnvironment,
    model_turns: ModelTurns,
    tools: ToolActivities | None = None,
    /,
    **overrides: Any,
) -> Run:
    """One AgentRun on Claude (the fake API) to its end; its history must replay."""
    overrides.setdefault("model", CLAUDE)
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time(), **overrides)
    async with worker(env.client, task_queue, model_turns, tools):
        handle = await start(env.client, request, task_queue)
        outcome = await handle.result()
    assert isinstance(outcome, RunOutcome)
    await replay(handle)
    return Run(request, outcome, handle)


async def model_turn_attempts(handle: WorkflowHandle[Any, Any]) -> list[int]:
    """The attempt number each model_turn activity ended on, from the run's history."""
    model_turns: set[int] = set()
    attempts: list[int] = []
    async for event in handle.fetch_history_events():
        if event.HasField("activity_task_scheduled_event_attributes"):
            scheduled = event.activity_task_scheduled_event_attributes
            if scheduled.activity_type.name == MODEL_TURN_ACTIVITY:
                model_turns.add(event.event_id)
        if event.HasField("activity_task_started_event_attributes"):
            started = event.activity_task_started_event_attributes
            if started.scheduled_event_id in model_turns:
                attempts.append(started.attempt)
    return attempts


async def first_model_turn_span(handle: WorkflowHandle[Any, Any]) -> timedelta:
    """From scheduling the first model_turn to its completion, on the server's clock."""
    scheduled_at: dict[int, datetime] = {}
    async for event in handle.fetch_history_events():
        if event.HasField("activity_task_scheduled_event_attributes"):
            scheduled = event.activity_task_scheduled_event_attributes
            if scheduled.activity_type.name == MODEL_TURN_ACTIVITY:
                scheduled_at[event.event_id] = event.event_time.ToDatetime()
        if event.HasField("activity_task_completed_event_attributes"):
            completed = event.activity_task_completed_event_attributes
            if completed.scheduled_event_id in scheduled_at:
                start = scheduled_at[completed.scheduled_event_id]
                return event.event_time.ToDatetime() - start
    raise AssertionError("no model_turn activity completed in this run")


class RecordingGateway(ToolGateway):
    """The real gateway, keeping what each call returned (the expected JSON needs it)."""

    def __init__(self, engine: Engine) -> None:
        # As `signoff worker` on the built-in profile file: it holds that file.
        super().__init__(engine, profiles=HeldProfiles.of([load_profile_file(BUILTIN_PROFILES)]))
        self.results: dict[str, ToolResult] = {}

    @activity.defn(name=RUN_TOOL_ACTIVITY)
    async def run_tool(self, call: ToolCallInput) -> ToolResult:
        result = await super().run_tool(call)
        self.results[call.tool_use_id] = result
        return result


# --- the body of a request, as the Messages API documents it ------------------------


def tools_param(specs: list[ToolSpec]) -> list[Json]:
    """Tool definitions; the last one carries the cache breakpoint of the tool prefix."""
    tools: list[Json] = [
        {"name": spec.name, "description": spec.description, "input_schema": spec.input_schema}
        for spec in specs
    ]
    tools[-1] = {**tools[-1], "cache_control": EPHEMERAL}
    return tools


def agent_body(request: RunRequest, messages: list[Json]) -> Json:
    """The exact body of an AgentRun model turn with these messages."""
    return {
        "model": request.model.model_id,
        "max_tokens": request.max_tokens,
        "system": [{"type": "text", "text": policy.SYSTEM_PROMPT, "cache_control": EPHEMERAL}],
        "messages": messages,
        "tools": tools_param([tool.spec() for tool in offered_tools()]),
        "tool_choice": {"type": "auto"},
        "metadata": {"user_id": actor_hash(request.tenant_id, request.actor_id)},
    }


def opening(request: RunRequest) -> Json:
    return user({"type": "text", "text": opening_message(request)})


def user(*blocks: Json) -> Json:
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: Json) -> Json:
    return {"role": "assistant", "content": list(blocks)}


def result(tool_use_id: str, content: str, is_error: bool = False) -> Json:
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": content,
        "is_error": is_error,
    }


def unanswered_tool_uses(messages: list[Json]) -> list[str]:
    """Ids of tool_use blocks that the next message does not answer first thing.

    The API's rule: an assistant message with tool_use blocks is followed by a user
    message that starts with one tool_result per call, same ids, in order.
    """
    unanswered: list[str] = []
    for index, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        calls = [block["id"] for block in message["content"] if block["type"] == "tool_use"]
        if not calls:
            continue
        following = messages[index + 1] if index + 1 < len(messages) else user()
        leading = following["content"][: len(calls)]
        answered = [block["tool_use_id"] for block in leading if block["type"] == "tool_result"]
        if following["role"] != "user" or answered != calls:
            unanswered.extend(calls)
    return unanswered
