"""What the agent did to get here: each model turn of a run, read back from its history.

Design note. The run's history is its audit log (DESIGN, principle 10): each model
turn is a `model_turn` activity whose input is the whole conversation as the model
received it and whose result is the model's reply. So the step-by-step view needs no
new query and no worker: the reply of turn N says what the model asked for, and the
request of turn N+1 holds each tool result exactly as the model then read it (bounded,
flagged when it was an error). A result the model has not received yet (the turn still
waits, say for a reviewer) comes from the `run_tool` activity when there is one, or is
shown as not returned. Older results that context clearing stubbed later are taken from
the first request that carried them whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

from temporalio.api.common.v1 import Payloads
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from signoff.service.handles import Runs, client_of
from signoff.service.pending import RunNotFound
from workflows.context import CLEARED_STUB
from workflows.contracts import (
    MODEL_TURN_ACTIVITY,
    RUN_TOOL_ACTIVITY,
    WORKFLOW_NAME,
    ModelReply,
    ModelRequest,
    RunRequest,
    TextBlock,
    ToolResult,
    ToolResultBlock,
    ToolUseBlock,
)
from workflows.policy import MAX_TOOL_RESULT_CHARS, bound_text

# Where a result comes from when it does not say so itself (read_ticket's JSON names
# its provenance; the others are ours).
PROVENANCE = {
    "get_order": "the shop's order records",
    "refund": "signoff's approval gate and refund ledger",
}
REFUSED_PROVENANCE = "signoff: the call was refused before any tool ran"
UNKNOWN_PROVENANCE = "signoff"
# Arguments are the model's own words: bounded like a tool result.
MAX_ARGUMENT_CHARS = 2000


@dataclass(frozen=True)
class ToolStep:
    tool_use_id: str
    name: str
    arguments: str  # pretty JSON, bounded
    result: str | None  # as the model received it; None when it has not returned yet
    is_error: bool
    provenance: str
    delivered: bool  # the model has read this result (it is in a later request)


@dataclass(frozen=True)
class TurnStep:
    turn: int
    asked_at: datetime | None
    text: list[str]
    stop_reason: str | None  # None: the model has not answered this turn yet
    calls: list[ToolStep] = field(default_factory=list)


def pretty(text: str, limit: int = MAX_TOOL_RESULT_CHARS) -> str:
    """JSON indented for a person to read (other text as it is), never past `limit`."""
    try:
        text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        pass
    return bound_text(text, limit)


def provenance_of(name: str, content: str | None, is_error: bool, known_tool: bool) -> str:
    if not known_tool and is_error:
        return REFUSED_PROVENANCE
    try:
        decoded = json.loads(content or "")
    except ValueError:
        decoded = None
    if isinstance(decoded, dict) and isinstance(decoded.get("provenance"), str):
        return str(decoded["provenance"])
    return PROVENANCE.get(name, UNKNOWN_PROVENANCE)


@dataclass
class _History:
    requests: list[tuple[datetime, ModelRequest]] = field(default_factory=list)
    replies: dict[int, ModelReply] = field(default_factory=dict)  # by request index
    tool_results: dict[str, ToolResult] = field(default_factory=dict)  # by tool_use_id
    # The tools the run's request offers, by name: its model turns carry only the prompt
    # catalog's digest for them (workflows/prompt_catalog.py).
    offered: set[str] = field(default_factory=set)


async def _decode(client: Client, payloads: Payloads, kind: type) -> object:
    decoded = await client.data_converter.decode(list(payloads.payloads), [kind])
    return decoded[0]


async def _read_history(client: Client, run_id: str) -> _History:
    history = _History()
    model_turns: dict[int, int] = {}  # scheduled event id -> request index
    tool_calls: set[int] = set()
    handle = client.get_workflow_handle(run_id)
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
            started = event.workflow_execution_started_event_attributes
            if started.workflow_type.name == WORKFLOW_NAME:
                run = await _decode(client, started.input, RunRequest)
                assert isinstance(run, RunRequest)
                history.offered.update(run.tools)
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled = event.activity_task_scheduled_event_attributes
            if scheduled.activity_type.name == MODEL_TURN_ACTIVITY:
                request = await _decode(client, scheduled.input, ModelRequest)
                assert isinstance(request, ModelRequest)
                model_turns[event.event_id] = len(history.requests)
                history.requests.append((event.event_time.ToDatetime(), request))
            elif scheduled.activity_type.name == RUN_TOOL_ACTIVITY:
                tool_calls.add(event.event_id)
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            completed = event.activity_task_completed_event_attributes
            if completed.scheduled_event_id in model_turns:
                reply = await _decode(client, completed.result, ModelReply)
                assert isinstance(reply, ModelReply)
                history.replies[model_turns[completed.scheduled_event_id]] = reply
            elif completed.scheduled_event_id in tool_calls:
                result = await _decode(client, completed.result, ToolResult)
                assert isinstance(result, ToolResult)
                history.tool_results[result.tool_use_id] = result
    return history


def _delivered_results(requests: list[ModelRequest]) -> dict[str, ToolResultBlock]:
    """Each tool result as the model first read it (before any clearing stubbed it)."""
    seen: dict[str, ToolResultBlock] = {}
    for request in requests:
        for message in request.messages:
            for block in message.content:
                if not isinstance(block, ToolResultBlock):
                    continue
                known = seen.get(block.tool_use_id)
                if known is None or (known.content == CLEARED_STUB != block.content):
                    seen[block.tool_use_id] = block
    return seen


def _tool_step(
    call: ToolUseBlock,
    delivered: dict[str, ToolResultBlock],
    returned: dict[str, ToolResult],
    known_tools: set[str],
) -> ToolStep:
    block = delivered.get(call.id)
    content: str | None
    if block is not None:
        content, is_error = block.content, block.is_error
    elif call.id in returned:
        content, is_error = returned[call.id].content, returned[call.id].is_error
    else:
        content, is_error = None, False
    return ToolStep(
        tool_use_id=call.id,
        name=call.name,
        arguments=pretty(json.dumps(call.input, ensure_ascii=False), MAX_ARGUMENT_CHARS),
        result=None if content is None else pretty(content),
        is_error=is_error,
        provenance=provenance_of(call.name, content, is_error, call.name in known_tools),
        delivered=block is not None,
    )


def steps_of(history: _History) -> list[TurnStep]:
    requests = [request for _, request in history.requests]
    delivered = _delivered_results(requests)
    known_tools = {tool.name for request in requests for tool in request.tools}
    known_tools |= history.offered
    steps: list[TurnStep] = []
    for index, (asked_at, _) in enumerate(history.requests):
        reply = history.replies.get(index)
        blocks = reply.content if reply else []
        steps.append(
            TurnStep(
                turn=index + 1,
                asked_at=asked_at,
                text=[block.text for block in blocks if isinstance(block, TextBlock)],
                stop_reason=reply.stop_reason if reply else None,
                calls=[
                    _tool_step(block, delivered, history.tool_results, known_tools)
                    for block in blocks
                    if isinstance(block, ToolUseBlock)
                ],
            )
        )
    return steps


async def read_trajectory(runs: Runs, run_id: str) -> list[TurnStep]:
    """The run's model turns, oldest first; RunNotFound when there is no such run.

    The caller has checked that the reader may see this run (its tenant).
    """
    client = client_of(runs)
    try:
        history = await _read_history(client, run_id)
    except RPCError as error:
        if error.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
            raise RunNotFound(run_id) from None
        raise
    return steps_of(history)


async def trajectory_or_none(runs: Runs, run_id: str) -> list[TurnStep] | None:
    """The trajectory, or None when the history cannot be read now: the page it sits on
    is still worth showing without it."""
    try:
        return await read_trajectory(runs, run_id)
    except (RunNotFound, RPCError):
        return None
