"""Where the run that asks an effect to act came from, and whether its model asked for it.

Design note. Anyone who reaches the Temporal frontend can start signoff's own workflow
on signoff's task queue with a request of their own (any ticket of a tenant, a model
that says what they like): signoff's code then runs it on signoff's workers, and its
gate proposes what that model asks for. An effect whose authority names no run (a
tool every agent runs `auto`, activities/auto_effects.py; a standing rule's grant,
activities/rule_callers.py) therefore asks two sources a workflow cannot write:

- Temporal's history of the calling run: its type and task queue (signoff's own
  workflow code on this worker's queue), the request it started with, and the model
  replies its turns returned (`caller_start`);
- the store's record of the runs signoff's service started (store/started_runs.py),
  which holds the fingerprint of each run's request.

`provenance_problem` says whether the two agree (a run the service started, with
exactly the request it recorded, for the command's tenant and ticket), and
`model_asked` whether the model made the very call the action carries out, argument
for argument. What stays possible: someone who reaches Temporal may start signoff's
own workflow again, with a copy of a finished run's request, under its id; that run is
signoff's agent on that ticket, with its profile and model, and an effect key the
first run already spent only runs once.

Cost: reading a history is one or more calls to Temporal, paged, and decoding every
model reply. It is done only where no signed decision names the run: an effect without
a proof, and an action carrying a rule's grant. A reviewer-approved effect never pays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from temporalio import activity
from temporalio.api.common.v1 import Payload
from temporalio.service import RPCError

from activities.store.started_runs import run_fingerprint
from signoff.tools import known_tools
from workflows.actions import PendingAction
from workflows.approval_policy import money, to_minor
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
from workflows.tool_catalog import REFUND, RefundArguments, ToolCallRejected, parse_arguments


class CallerUnknown(Exception):
    """Temporal could not describe the workflow that called this activity."""


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


def provenance_problem(
    start: RunStart,
    *,
    run_id: str,
    task_queue: str,
    stored_fingerprint: str | None,
    tenant_id: str,
    ticket_id: str,
) -> str | None:
    """None when the run `run_id` that called is signoff's own workflow on `task_queue`,
    started by signoff's service with exactly the request it recorded
    (`stored_fingerprint`), for `tenant_id` and `ticket_id`; else why not."""
    if start.workflow_type != WORKFLOW_NAME or start.task_queue != task_queue:
        return (
            f"Workflow '{run_id}' ({start.workflow_type} on task queue "
            f"'{start.task_queue}') is not one of signoff's runs"
        )
    request = start.request
    if request is None:
        return f"Workflow '{run_id}' did not start with a run's request"
    if run_id_for(request.tenant_id, request.request_id) != run_id:
        return f"Workflow '{run_id}' does not carry the id its request names"
    if stored_fingerprint is None:
        return f"The store knows no run '{run_id}': signoff's service did not start it"
    if stored_fingerprint != run_fingerprint(request):
        return f"Run '{run_id}' did not start with the request signoff's service recorded for it"
    if (tenant_id, ticket_id) != (request.tenant_id, request.ticket_id):
        return f"Run '{run_id}' works for another tenant or ticket"
    return None


def model_asked(start: RunStart, action: PendingAction) -> bool:
    """Whether the run's model made the call `action` carries out, argument for
    argument, in the form the gate writes them."""
    return any(_is_the_call(use, action) for use in start.tool_uses)


def _is_the_call(use: ToolUseBlock, action: PendingAction) -> bool:
    if use.id != action.tool_use_id or use.name != action.tool:
        return False
    if split_offered_name(use.name) is not None:
        return shown_arguments(use.input) == action.arguments
    if use.name == REFUND.name:
        return _is_the_refund(use, action)
    tool = known_tools().get(use.name)
    if tool is None:
        return False
    try:
        return normalized(tool, use.input) == action.arguments
    except ToolCallRejected:
        return False


def _is_the_refund(use: ToolUseBlock, action: PendingAction) -> bool:
    """The refund's action carries the model's amount as money and its reason as the
    action's reason (workflows/refund_hooks.py); the currency is the order's."""
    try:
        asked = parse_arguments(REFUND, use.input)
    except ToolCallRejected:
        return False
    assert isinstance(asked, RefundArguments)  # REFUND's own model
    return (
        money(to_minor(asked.amount)) == action.arguments.get("amount")
        and asked.reason == action.reason
    )
