"""One measured refund run of `python -m bench.runs`, for any side, and what it measures.

A run: start it, wait until it asks for a decision, send a reviewer's approval, wait
for its end. The wait is a long-poll of the run's history (no timer of ours, nothing
the workers answer): the run waits once its approval's expiry timer has started, the
first timer after its action state was read. Then one query reads the pending hash.
signoff's decision goes through `signoff.service.decisions.decide`, as the CLI and the
UI send it; the raw baseline's is the same signed `Decision` in a plain Update; the
minimal baseline's is its own small decision, unsigned.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import Engine
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowHandle, WorkflowHistory

from activities.store.refunds import list_refunds
from bench.runs import minimal_workflow as minimal
from bench.runs.decision_phases import decision_phases
from bench.runs.raw_refund import RAW_WORKFLOW_NAME
from signoff.config.decision_signatures import DecisionSigner
from signoff.config.settings import Settings
from signoff.config.telemetry import run_trace
from signoff.service.decisions import Decider, decide, signed_decision
from signoff.service.handles import Runs, Store
from signoff.service.run_requests import new_run_request
from signoff.service.runs import start_run
from workflows.actions import EXECUTE_REFUND_ACTIVITY, READ_ACTION_STATE_ACTIVITY, DecisionResult
from workflows.contracts import ModelRef, RunState

Kind = Literal["signoff", "raw", "minimal"]
KINDS: tuple[Kind, ...] = ("signoff", "raw")  # signoff, then today's baseline
TENANT = "demo"
REVIEWER = Decider(reviewer_id="alice", tenant_id=TENANT, roles=("refund_approver",))
WAIT_SECONDS = 120
# The activity after which each side's wait for a decision begins.
STATE_READ: dict[Kind, str] = {
    "signoff": READ_ACTION_STATE_ACTIVITY,
    "raw": READ_ACTION_STATE_ACTIVITY,
    "minimal": minimal.READ_ACTION_STATE,
}
# Each side's effect activity: the refund.
EFFECT: dict[Kind, str] = {
    "signoff": EXECUTE_REFUND_ACTIVITY,
    "raw": EXECUTE_REFUND_ACTIVITY,
    "minimal": minimal.EXECUTE_REFUND,
}
CLOSED = {
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
}


def turn_order(kinds: tuple[Kind, ...], number: int) -> tuple[Kind, ...]:
    """The sides in the order of round `number`: rotated each round, so that each side
    goes first, and last, as often as the others (the machine's load moves)."""
    shift = number % len(kinds)
    return kinds[shift:] + kinds[:shift]


@dataclass(frozen=True)
class Sample:
    kind: Kind
    run_id: str
    order_id: str
    seconds: float  # start to result, end to end
    decide_seconds: float  # the decide call, sent to returned
    closed_at: datetime  # the run's close time, as the server recorded it
    # The decide call's send and return by the wall clock, for its phases against the
    # history's times (decision_phases.py).
    decide_sent_at: datetime
    decide_returned_at: datetime


@dataclass
class Sides:
    """What one invocation needs to start runs on every side."""

    client: Client
    settings: Settings
    # The bench signs as the decision service does: it runs on the dev stack's home.
    signer: DecisionSigner
    queues: dict[Kind, str]
    # The store the decision service writes its audit of refused decisions to.
    store: Engine


def waits_after(events: list[HistoryEvent], state_read: str) -> bool | None:
    """True once the history shows a timer started after the `state_read` activity
    completed (the approval's expiry: the run waits); None once the run closed first;
    False while neither."""
    scheduled: dict[int, str] = {}
    read = False
    for event in events:
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            name = event.activity_task_scheduled_event_attributes.activity_type.name
            scheduled[event.event_id] = name
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            attributes = event.activity_task_completed_event_attributes
            read = read or scheduled.get(attributes.scheduled_event_id) == state_read
        elif event.event_type == EventType.EVENT_TYPE_TIMER_STARTED and read:
            return True
        elif event.event_type in CLOSED:
            return None
    return False


async def pending_hash(kind: Kind, handle: WorkflowHandle[Any, Any]) -> str:
    """Long-poll the history until the run waits; then read its pending hash once."""
    events: list[HistoryEvent] = []
    async for event in handle.fetch_history_events(wait_new_event=True):
        events.append(event)
        waiting = waits_after(events, STATE_READ[kind])
        if waiting is None:
            break
        if waiting:
            if kind == "signoff":
                state: RunState = await handle.query("state", result_type=RunState)
                return state.pending_actions[0].action_hash
            digest = await handle.query("pending_hash", result_type=str | None)  # type: ignore[arg-type]
            return str(digest)
    raise SystemExit(f"{handle.id} ended without asking for a decision")


async def start(sides: Sides, kind: Kind, ticket_id: str) -> WorkflowHandle[Any, Any]:
    request = new_run_request(
        sides.settings,
        Store(sides.store),
        tenant_id=TENANT,
        ticket_id=ticket_id,
        model=ModelRef(provider="scripted", model_id="demo"),
        actor_id="bench",
        request_id=uuid.uuid4().hex[:12],
    )
    if kind == "signoff":
        handle, _ = await start_run(Runs(sides.client), request, sides.queues[kind])
        return handle
    # Traced as signoff's runs are (the same TracingInterceptor on every worker): their
    # activities carry the same trace header.
    with run_trace(request.trace_id):
        if kind == "raw":
            return await sides.client.start_workflow(
                RAW_WORKFLOW_NAME,
                request,
                id=f"raw-{request.request_id}",
                task_queue=sides.queues[kind],
            )
        return await sides.client.start_workflow(
            minimal.MINIMAL_WORKFLOW_NAME,
            minimal.MinimalRequest(TENANT, ticket_id, request.approval_ttl_seconds),
            id=f"minimal-{request.request_id}",
            task_queue=sides.queues[kind],
        )


async def approve(sides: Sides, kind: Kind, handle: WorkflowHandle[Any, Any], digest: str) -> str:
    """The reviewer's approval; what the run answered."""
    if kind == "signoff":
        result = await decide(
            Runs(sides.client),
            sides.signer,
            handle.id,
            REVIEWER,
            digest,
            "approve",
            "bench",
            store=Store(sides.store),
        )
        return result.status
    if kind == "raw":
        decision = signed_decision(sides.signer, handle.id, REVIEWER, digest, "approve", "bench")
        raw: DecisionResult = await handle.execute_update(
            "decide", decision, result_type=DecisionResult
        )
        return raw.status
    small = minimal.MinimalDecision(digest, REVIEWER.reviewer_id, "approve")
    return str(await handle.execute_update("decide", small, result_type=str))


async def one_run(sides: Sides, kind: Kind, ticket_id: str) -> Sample:
    began = time.perf_counter()
    handle = await start(sides, kind, ticket_id)
    digest = await asyncio.wait_for(pending_hash(kind, handle), WAIT_SECONDS)
    sent_at, sent = datetime.now(UTC), time.perf_counter()
    status = await approve(sides, kind, handle, digest)
    decide_seconds = time.perf_counter() - sent
    returned_at = datetime.now(UTC)
    if status != "approved":
        raise SystemExit(f"{handle.id}: the decision was not taken: {status}")
    await handle.result()
    seconds = time.perf_counter() - began
    closed_at = (await handle.describe()).close_time or datetime.now(UTC)
    order_id = ticket_id.removeprefix("T-")
    return Sample(
        kind, handle.id, order_id, seconds, decide_seconds, closed_at, sent_at, returned_at
    )


async def many_runs(sides: Sides, kind: Kind, tickets: list[str], concurrency: int) -> list[Sample]:
    gate = asyncio.Semaphore(concurrency)

    async def bounded(ticket_id: str) -> Sample:
        async with gate:
            return await one_run(sides, kind, ticket_id)

    return list(await asyncio.gather(*(bounded(ticket) for ticket in tickets)))


def accepted_at(history: WorkflowHistory) -> datetime:
    """When the server accepted the run's `decide` Update (its history's event)."""
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
            return event.event_time.ToDatetime(tzinfo=UTC)
    raise SystemExit(f"{history.workflow_id}: no decision was accepted")


def refund_row_at(engine: Engine, sample: Sample) -> datetime:
    """The refund row's `created_at`, which the refund transaction stamps just before
    its commit."""
    [refund] = list_refunds(engine, TENANT, sample.order_id)
    return refund.created_at


def decision_to_effect_ms(refund_row: datetime, accepted: datetime) -> float:
    """Update accepted to the refund row."""
    return (refund_row - accepted).total_seconds() * 1000


def phases_of(history: WorkflowHistory, sample: Sample, refund_row: datetime) -> dict[str, float]:
    """Where the decision's time went in this run (decision_phases.py)."""
    return decision_phases(
        history.events,
        EFFECT[sample.kind],
        sample.decide_sent_at,
        sample.decide_returned_at,
        refund_row,
    )


def decision_to_close_ms(sample: Sample, accepted: datetime) -> float:
    """Update accepted to the run's close, both as the server recorded them."""
    return (sample.closed_at - accepted).total_seconds() * 1000


@dataclass(frozen=True)
class HistorySize:
    events: int
    bytes: int
    types: Counter[str]  # events by type
    kinds: Counter[str]  # bytes by kind of event (type, and an activity's name)
    history: WorkflowHistory  # the history measured


def event_kind(event: HistoryEvent) -> str:
    name = EventType.Name(event.event_type).removeprefix("EVENT_TYPE_")
    if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        return f"{name} {event.activity_task_scheduled_event_attributes.activity_type.name}"
    return name


def keep_history(history: WorkflowHistory, path: Path) -> None:
    """The run's history as JSON (what `signoff replay` and the Web UI read)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(history.to_json(), encoding="utf-8")


async def history_size(client: Client, run_id: str) -> HistorySize:
    """Events, serialized bytes, event types and bytes by kind of the run's history."""
    history = await client.get_workflow_handle(run_id).fetch_history()
    kinds: Counter[str] = Counter()
    for event in history.events:
        kinds[event_kind(event)] += event.ByteSize()
    return HistorySize(
        events=len(history.events),
        bytes=sum(kinds.values()),
        types=Counter(EventType.Name(event.event_type) for event in history.events),
        kinds=kinds,
        history=history,
    )
