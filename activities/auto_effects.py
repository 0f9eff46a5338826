"""Whether an effect no reviewer approved may run: the one check such an effect has.

Design note. An irreversible tool every agent runs `auto` (the built-in profile's
`send_reply`) carries no proof, so its effect cannot verify a decision; it verifies
where the call came from instead, from two sources a workflow cannot write:

- Temporal's history of the calling run: its type and task queue (signoff's own
  workflow code on this worker's queue), the request it started with, and the model
  replies its turns returned;
- the store's record of the runs signoff's service started (store/started_runs.py),
  which holds the fingerprint of each run's request.

It runs only for a run the store knows, started with exactly the request the service
wrote (tenant, ticket, actor, model, profile, offered tools), whose agent, in the
profile this worker holds by that hash, runs the tool `auto`, for a call its model
made, with the arguments the model gave. Anything else is refused on the audit. What
stays possible: someone who reaches Temporal may start signoff's own workflow again,
with a copy of a finished run's request, under its id; that run is signoff's agent on
that ticket, with its profile, and an effect key the first run already spent only
runs once.

The history is read only here, only for an effect without a proof: a refund or an
approved tool never pays for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from temporalio import activity
from temporalio.api.common.v1 import Payload
from temporalio.service import RPCError

from activities.held_profiles import HeldProfiles, ProfileNotHeld
from activities.rule_callers import CallerUnknown
from activities.store.started_runs import run_fingerprint
from signoff.tools import known_tools
from workflows.actions import ToolActionCommand
from workflows.contracts import (
    MODEL_TURN_ACTIVITY,
    WORKFLOW_NAME,
    ModelReply,
    RunRequest,
    ToolUseBlock,
    run_id_for,
)
from workflows.mcp_tools import shown_arguments, split_offered_name
from workflows.tool_arguments import normalized
from workflows.tool_catalog import ToolCallRejected


@dataclass(frozen=True)
class RunStart:
    """What Temporal's history says of the run that called: its type, task queue and
    request (None when its input is not one), and every tool call its model made."""

    workflow_type: str
    task_queue: str
    request: RunRequest | None
    tool_uses: tuple[ToolUseBlock, ...]


async def caller_start() -> RunStart:
    """The calling run's start and model calls, from its history; CallerUnknown when
    Temporal cannot give it."""
    info = activity.info()
    client = activity.client()
    converter = client.data_converter
    handle = client.get_workflow_handle(info.workflow_id or "", run_id=info.workflow_run_id)
    workflow_type = task_queue = ""
    request: RunRequest | None = None
    model_turns: set[int] = set()
    replies: list[Payload] = []
    try:
        async for event in handle.fetch_history_events():
            if event.HasField("workflow_execution_started_event_attributes"):
                started = event.workflow_execution_started_event_attributes
                workflow_type = started.workflow_type.name
                task_queue = started.task_queue.name
                request = await _request(converter.decode, list(started.input.payloads))
            elif event.HasField("activity_task_scheduled_event_attributes"):
                scheduled = event.activity_task_scheduled_event_attributes
                if scheduled.activity_type.name == MODEL_TURN_ACTIVITY:
                    model_turns.add(event.event_id)
            elif event.HasField("activity_task_completed_event_attributes"):
                completed = event.activity_task_completed_event_attributes
                if completed.scheduled_event_id in model_turns:
                    replies.extend(completed.result.payloads)
    except (RPCError, RuntimeError):
        raise CallerUnknown from None
    tool_uses: list[ToolUseBlock] = []
    for payload in replies:
        (reply,) = await converter.decode([payload], [ModelReply])
        tool_uses.extend(block for block in reply.content if isinstance(block, ToolUseBlock))
    return RunStart(workflow_type, task_queue, request, tuple(tool_uses))


async def _request(decode: Callable[..., object], payloads: list[Payload]) -> RunRequest | None:
    """The run's request, or None when its input is anything else."""
    if len(payloads) != 1:
        return None
    try:
        (request,) = await decode(payloads, [RunRequest])  # type: ignore[misc]
    except Exception:  # noqa: BLE001 - an input that is not a request is an answer, not a bug
        return None
    return request if isinstance(request, RunRequest) else None


def auto_effect_problem(
    start: RunStart,
    *,
    task_queue: str,
    stored_fingerprint: str | None,
    command: ToolActionCommand,
    profiles: HeldProfiles,
) -> str | None:
    """None when `command`, an effect with no proof, may run for the run that called
    (its workflow id is `command.run_id`: the caller checks that); else why not."""
    if start.workflow_type != WORKFLOW_NAME or start.task_queue != task_queue:
        return (
            f"Workflow '{command.run_id}' ({start.workflow_type} on task queue "
            f"'{start.task_queue}') is not one of signoff's runs"
        )
    request = start.request
    if request is None:
        return f"Workflow '{command.run_id}' did not start with a run's request"
    if run_id_for(request.tenant_id, request.request_id) != command.run_id:
        return f"Workflow '{command.run_id}' does not carry the id its request names"
    if stored_fingerprint is None:
        return f"The store knows no run '{command.run_id}': signoff's service did not start it"
    if stored_fingerprint != run_fingerprint(request):
        return (
            f"Run '{command.run_id}' did not start with the request signoff's service "
            "recorded for it"
        )
    if (command.tenant_id, command.ticket_id) != (request.tenant_id, request.ticket_id):
        return f"Run '{command.run_id}' works for another tenant or ticket"
    problem = _not_auto(request, command.action.tool, profiles)
    if problem is not None:
        return problem
    if not any(_is_the_call(use, command) for use in start.tool_uses):
        return (
            f"The model of run '{command.run_id}' never asked for this call of "
            f"{command.action.tool} with these arguments"
        )
    return None


def _not_auto(request: RunRequest, tool: str, profiles: HeldProfiles) -> str | None:
    """Why the run's own agent does not run `tool` without a reviewer; None if it does.
    ProfileNotHeld propagates: another worker may hold the profile."""
    if request.profile is None:
        return "The run names no profile, so no tool of it runs without a reviewer"
    agent = profiles.agent(request.profile.content_hash, request.profile.agent_name)
    mcp = split_offered_name(tool)
    if mcp is not None:
        server = agent.mcp_servers.get(mcp[0])
        policy = None if server is None else server.tools.get(mcp[1])
    else:
        policy = agent.policy(tool) if tool in request.tools and tool in agent.tools else None
    if policy is None:
        return f"The run's agent '{request.profile.agent_name}' does not offer {tool}"
    if policy.approval != "auto":
        return (
            f"The run's agent '{request.profile.agent_name}' runs {tool} only with a "
            f"reviewer's approval ({policy.approval})"
        )
    return None


def _is_the_call(use: ToolUseBlock, command: ToolActionCommand) -> bool:
    """Whether the model's `use` is the call `command` carries out, argument for
    argument, in the form the gate writes them."""
    action = command.action
    if use.id != action.tool_use_id or use.name != action.tool:
        return False
    if split_offered_name(use.name) is not None:
        return shown_arguments(use.input) == action.arguments
    tool = known_tools().get(use.name)
    if tool is None:
        return False
    try:
        return normalized(tool, use.input) == action.arguments
    except ToolCallRejected:
        return False


__all__ = ["ProfileNotHeld", "RunStart", "auto_effect_problem", "caller_start"]
