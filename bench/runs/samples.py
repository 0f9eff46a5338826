"""One measured refund run of `python -m bench.runs`, for either side, and what it measures.

A run: start it, wait until it asks for a decision (its pending hash, read by query
every POLL_SECONDS, the same for both sides), send a reviewer's signed approval, wait
for its end. signoff's decision goes through `signoff.service.decisions.decide`, as the
CLI and the UI send it; the baseline's is the same signed `Decision` in a plain Update.
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
from bench.runs.raw_refund import RAW_WORKFLOW_NAME
from signoff.config.decision_signatures import DecisionSigner
from signoff.config.settings import Settings
from signoff.config.telemetry import run_trace
from signoff.service.decisions import Decider, decide, signed_decision
from signoff.service.run_requests import new_run_request
from signoff.service.runs import start_run
from workflows.actions import DecisionResult
from workflows.contracts import ModelRef, RunState

Kind = Literal["signoff", "raw"]
KINDS: tuple[Kind, Kind] = ("signoff", "raw")
TENANT = "demo"
REVIEWER = Decider(reviewer_id="alice", tenant_id=TENANT, roles=("refund_approver",))
POLL_SECONDS = 0.02
WAIT_SECONDS = 120


@dataclass(frozen=True)
class Sample:
    kind: Kind
    run_id: str
    order_id: str
    seconds: float  # start to result, end to end
    decided_at: datetime  # when the decide Update returned, accepted


@dataclass
class Sides:
    """What one invocation needs to start runs on both sides."""

    client: Client
    settings: Settings
    # The bench signs as the decision service does: it runs on the dev stack's home.
    signer: DecisionSigner
    queues: dict[Kind, str]


async def pending_hash(kind: Kind, handle: WorkflowHandle[Any, Any]) -> str:
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if kind == "signoff":
            state: RunState = await handle.query("state", result_type=RunState)
            if state.pending_actions:
                return state.pending_actions[0].action_hash
        else:
            digest = await handle.query("pending_hash", result_type=str | None)  # type: ignore[arg-type]
            if digest:
                return str(digest)
        await asyncio.sleep(POLL_SECONDS)
    raise SystemExit(f"{handle.id} asked for no decision within {WAIT_SECONDS} s")


async def one_run(sides: Sides, kind: Kind, ticket_id: str) -> Sample:
    request = new_run_request(
        sides.settings,
        tenant_id=TENANT,
        ticket_id=ticket_id,
        model=ModelRef(provider="scripted", model_id="demo"),
        actor_id="bench",
        request_id=uuid.uuid4().hex[:12],
    )
    began = time.perf_counter()
    handle: WorkflowHandle[Any, Any]
    if kind == "signoff":
        handle, _ = await start_run(sides.client, request, sides.queues[kind])
    else:
        # Traced as signoff's runs are (the same TracingInterceptor on both workers): its
        # activities carry the same trace header.
        with run_trace(request.trace_id):
            handle = await sides.client.start_workflow(
                RAW_WORKFLOW_NAME,
                request,
                id=f"raw-{request.request_id}",
                task_queue=sides.queues[kind],
            )
    digest = await pending_hash(kind, handle)
    if kind == "signoff":
        result = await decide(
            sides.client, sides.signer, handle.id, REVIEWER, digest, "approve", "bench"
        )
    else:
        decision = signed_decision(sides.signer, handle.id, REVIEWER, digest, "approve", "bench")
        result = await handle.execute_update("decide", decision, result_type=DecisionResult)
    decided_at = datetime.now(UTC)
    if result.status != "approved":
        raise SystemExit(f"{handle.id}: the decision was not taken: {result.message}")
    await handle.result()
    order_id = ticket_id.removeprefix("T-")
    return Sample(kind, handle.id, order_id, time.perf_counter() - began, decided_at)


async def many_runs(sides: Sides, kind: Kind, tickets: list[str], concurrency: int) -> list[Sample]:
    gate = asyncio.Semaphore(concurrency)

    async def bounded(ticket_id: str) -> Sample:
        async with gate:
            return await one_run(sides, kind, ticket_id)

    return list(await asyncio.gather(*(bounded(ticket) for ticket in tickets)))


def decision_to_effect_ms(engine: Engine, sample: Sample) -> float:
    """Update accepted (client side) to the refund row's `created_at`, which the refund
    transaction stamps just before its commit."""
    [refund] = list_refunds(engine, TENANT, sample.order_id)
    return (refund.created_at - sample.decided_at).total_seconds() * 1000


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
