"""Runs driven through a fault, and how each fault's row of the table is counted.

A refund run gets its own order and ticket (`testkit/refund_cases.py`), is started as
`signoff run` starts it, waits for a reviewer, is approved with a signed decision as the
CLI sends it, and must end `completed` with exactly one refund on its order:

- lost: a run that did not end so (it failed, hung past the bound, or has no refund);
- doubled: an order with more than one refund row;
- recovery: from the moment the fault was injected to the last run's end.

Waiting is bounded (FINISH_SECONDS); a run still going then counts as lost.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle

from activities.store.refunds import list_refunds
from signoff.config.decision_signatures import DecisionSigner
from signoff.config.settings import Settings
from signoff.service.decisions import Decider, decide
from signoff.service.handles import Runs, Store
from signoff.service.run_requests import new_run_request
from signoff.service.runs import start_run
from workflows.actions import DecisionResult
from workflows.agent_run import AgentRun
from workflows.contracts import ModelRef, RunOutcome, RunState

TENANT = "demo"
ALICE = Decider(reviewer_id="alice", tenant_id=TENANT, roles=("refund_approver",))
BOB = Decider(reviewer_id="bob", tenant_id=TENANT, roles=("refund_approver",))
SCRIPTED = ModelRef(provider="scripted", model_id="demo")
POLL_SECONDS = 0.5
# Bounds on waiting, not measurements: the slowest recovery waits out a tool call's
# 60 s start-to-close timeout, then the store's or the model's retry backoff.
PENDING_SECONDS = 240
FINISH_SECONDS = 300

Handle = WorkflowHandle[Any, Any]


@dataclass
class Bench:
    """What a fault needs to start, decide and check runs."""

    client: Client
    settings: Settings
    signer: DecisionSigner
    engine: Engine


@dataclass
class Row:
    """One line of bench/results/CHAOS.md."""

    fault: str
    runs: int
    lost: int
    doubled: int | None  # None: the fault moves no money
    recovery_seconds: float
    notes: list[str] = field(default_factory=list)


async def start_runs(bench: Bench, tickets: list[str], model: ModelRef = SCRIPTED) -> list[Handle]:
    async def one(ticket_id: str) -> Handle:
        request = new_run_request(
            bench.settings,
            Store(bench.engine),
            tenant_id=TENANT,
            ticket_id=ticket_id,
            model=model,
            actor_id="chaos",
            request_id=uuid.uuid4().hex[:12],
        )
        handle, _ = await start_run(Runs(bench.client), request, bench.settings.task_queue)
        return handle

    return list(await asyncio.gather(*(one(ticket) for ticket in tickets)))


async def pending_hash(handle: Handle, within: float = PENDING_SECONDS) -> str:
    """The action the run waits on. A query needs a worker: while none polls (killed,
    or the server restarting), the query fails and is asked again."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state: RunState = await handle.query(AgentRun.state)
        except Exception:
            await asyncio.sleep(POLL_SECONDS)
            continue
        if state.pending_actions:
            return state.pending_actions[0].action_hash
        if state.status in ("completed", "failed", "cancelled"):
            raise RuntimeError(f"{handle.id} ended ({state.status}) without asking")
        await asyncio.sleep(POLL_SECONDS)
    raise TimeoutError(f"{handle.id} asked for no decision within {within:.0f} s")


async def approve(
    bench: Bench,
    handle: Handle,
    reviewer: Decider = ALICE,
    digest: str | None = None,
    reason: str = "chaos",
) -> DecisionResult:
    """`reviewer` approves the action the run waits on (`digest`, when the caller read
    it already: two reviewers racing approve the same one)."""
    return await decide(
        Runs(bench.client),
        bench.signer,
        handle.id,
        reviewer,
        digest or await pending_hash(handle),
        "approve",
        reason,
        store=Store(bench.engine),
    )


async def approve_all(bench: Bench, handles: list[Handle]) -> None:
    results = await asyncio.gather(*(approve(bench, handle) for handle in handles))
    refused = [result for result in results if result.status != "approved"]
    if refused:
        raise SystemExit(f"approvals not taken: {[r.message for r in refused]}")


async def timed(outcome: Awaitable[Any]) -> tuple[Any, float]:
    """What `outcome` gave (or raised), and when (time.monotonic)."""
    try:
        value = await outcome
    except Exception as error:
        value = error
    return value, time.monotonic()


async def ends(
    awaitables: list[Awaitable[Any]], within: float = FINISH_SECONDS
) -> list[tuple[Any, float] | None]:
    """Each awaitable's end (see `timed`), None for those still going after `within` s."""
    tasks = [asyncio.ensure_future(timed(item)) for item in awaitables]
    await asyncio.wait(tasks, timeout=within)
    for task in tasks:
        if not task.done():
            task.cancel()
    return [task.result() if task.done() and not task.cancelled() else None for task in tasks]


async def finish_refunds(bench: Bench, handles: list[Handle], decide_too: bool) -> list[Any]:
    """Each run's end: approved first (when `decide_too`), then its result."""

    async def one(handle: Handle) -> RunOutcome:
        if decide_too:
            await approve(bench, handle)
        outcome: RunOutcome = await handle.result()
        return outcome

    return await ends([one(handle) for handle in handles])


def refund_row(
    fault: str,
    bench: Bench,
    tickets: list[str],
    finished: list[Any],
    injected_at: float,
    notes: list[str] | None = None,
) -> Row:
    """Count lost and doubled refunds: order B…-n belongs to ticket T-B…-n."""
    lost = doubled = 0
    last = injected_at
    problems: list[str] = []
    for ticket_id, end in zip(tickets, finished, strict=True):
        rows = list_refunds(bench.engine, TENANT, ticket_id.removeprefix("T-"))
        doubled += len(rows) > 1
        outcome = end[0] if end else None
        good = (
            isinstance(outcome, RunOutcome)
            and (outcome.status, outcome.reason) == ("completed", "answered")
            and len(outcome.effects_performed) == 1
            and len(rows) >= 1
        )
        if not good:
            lost += 1
            problems.append(f"{ticket_id}: {describe(outcome)}, {len(rows)} refund row(s)")
        if end:
            last = max(last, end[1])
    return Row(fault, len(tickets), lost, doubled, last - injected_at, [*(notes or []), *problems])


def describe(outcome: Any) -> str:
    if outcome is None:
        return "still running at the bound"
    if isinstance(outcome, RunOutcome):
        return f"{outcome.status}/{outcome.reason}: {outcome.detail}"
    return f"{type(outcome).__name__}: {outcome}"


async def retried_attempts(handles: list[Handle]) -> Counter[str]:
    """Per activity type: how many of its attempts were retries (attempt > 1)."""
    retried: Counter[str] = Counter()
    for handle in handles:
        history = await handle.fetch_history()
        scheduled = {
            event.event_id: event.activity_task_scheduled_event_attributes.activity_type.name
            for event in history.events
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        }
        for event in history.events:
            started = event.activity_task_started_event_attributes
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
                retried[scheduled[started.scheduled_event_id]] += started.attempt > 1
    return retried


def retried_text(retried: Counter[str]) -> str:
    named = [f"{name} {count}" for name, count in sorted(retried.items()) if count]
    return ", ".join(named) or "none"
