"""The faults that are not a worker's death: the server restarted, an overloaded model,
two reviewers racing. (The store's outage is in `bench/chaos/store_outage.py`.)"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from temporalio.client import WorkflowUpdateRPCTimeoutOrCancelledError

from bench.chaos.model import OverloadedModel
from bench.chaos.processes import DevServer, worker_process
from bench.chaos.runs import (
    ALICE,
    BOB,
    TENANT,
    Bench,
    Handle,
    Row,
    approve,
    describe,
    ends,
    finish_refunds,
    pending_hash,
    refund_row,
    retried_attempts,
    retried_text,
    start_runs,
)
from signoff.service.decisions import DecisionNotAccepted
from testkit.refund_cases import add_refund_cases
from workflows import policy
from workflows.agent_run import AgentRun
from workflows.contracts import ModelRef, RunOutcome

ORDER_STATUS_TICKET = "T-4512"  # the demo's "where is my parcel?": no refund
RACES_AT_ONCE = 10


async def server_restart(bench: Bench, env: dict[str, str], server: DevServer, runs: int) -> Row:
    """Half the runs wait for approval, half were just started, when the server stops
    (SIGTERM) and starts again on its file; then every run is approved and must end."""
    tickets = add_refund_cases(bench.settings.resolved_database_url, TENANT, runs)
    half = runs // 2
    with worker_process(env, "restart"):
        waiting = await start_runs(bench, tickets[:half])
        await asyncio.gather(*(pending_hash(handle) for handle in waiting))
        moving = await start_runs(bench, tickets[half:])
        injected_at = time.monotonic()
        server.stop()
        server.start()
        bench.client = await server.client()
        handles = [
            bench.client.get_workflow_handle_for(AgentRun.run, h.id) for h in [*waiting, *moving]
        ]
        finished = await finish_refunds(bench, handles, decide_too=True)
        retried = await retried_attempts(handles)
    notes = [
        f"Server restart: {half} runs waited for approval across it and were decided "
        f"after it; {runs - half} had just started; activity attempts retried: "
        f"{retried_text(retried)}."
    ]
    return refund_row(
        "Temporal dev server restarted mid-run", bench, tickets, finished, injected_at, notes
    )


def model_environment(env: dict[str, str], model: OverloadedModel) -> dict[str, str]:
    return {
        **env,
        "ANTHROPIC_API_KEY": "chaos-key",
        "ANTHROPIC_BASE_URL": model.base_url,
        "NO_PROXY": "127.0.0.1",
        "no_proxy": "127.0.0.1",
    }


async def model_runs(
    bench: Bench, env: dict[str, str], runs: int, mode: str
) -> tuple[list[Any], float, OverloadedModel]:
    claude = ModelRef(provider="anthropic", model_id=bench.settings.anthropic_model)
    with OverloadedModel() as model, worker_process(model_environment(env, model), f"model-{mode}"):
        model.serve("half" if mode == "half" else "down")
        started_at = time.monotonic()
        handles = await start_runs(bench, [ORDER_STATUS_TICKET] * runs, model=claude)
        finished = await ends([handle.result() for handle in handles])
    return finished, started_at, model


async def model_half(bench: Bench, env: dict[str, str], runs: int) -> Row:
    """Every other call is refused (529): each run must still answer."""
    finished, started_at, model = await model_runs(bench, env, runs, "half")
    lost = [end for end in finished if not answered(end)]
    notes = [
        f"Model 529 to half its calls: {model.refused} of {model.calls} calls refused; "
        f"each turn has {policy.MODEL_TURN_MAX_ATTEMPTS} attempts."
    ] + [describe(end[0] if end else None) for end in lost]
    return Row(
        "model answers 529 to half its calls",
        runs,
        len(lost),
        None,
        last_end(finished, started_at),
        notes,
    )


async def model_down(bench: Bench, env: dict[str, str], runs: int) -> Row:
    """Every call is refused: each run must end model_error, saying why, not hang."""
    finished, started_at, model = await model_runs(bench, env, runs, "down")
    reasons = {end[0].detail for end in finished if ended_on_model_error(end)}
    lost = [end for end in finished if not ended_on_model_error(end)]
    notes = [
        f"Model down: {model.calls} calls for {runs} runs "
        f"({policy.MODEL_TURN_MAX_ATTEMPTS} attempts each); the reason given: "
        + "; ".join(sorted(reasons))
    ] + [describe(end[0] if end else None) for end in lost]
    return Row(
        "model down for good (529 to every call)",
        runs,
        len(lost),
        None,
        last_end(finished, started_at),
        notes,
    )


def answered(end: tuple[Any, float] | None) -> bool:
    return end is not None and isinstance(end[0], RunOutcome) and end[0].reason == "answered"


def ended_on_model_error(end: tuple[Any, float] | None) -> bool:
    if not end or not isinstance(end[0], RunOutcome):
        return False
    outcome: RunOutcome = end[0]
    return (outcome.status, outcome.reason) == ("failed", "model_error") and bool(outcome.detail)


def last_end(finished: list[tuple[Any, float] | None], started_at: float) -> float:
    return max((end[1] for end in finished if end), default=started_at) - started_at


async def race(bench: Bench, handle: Handle) -> list[Any]:
    """Alice and Bob approve the same action at the same moment; what each one read."""
    digest = await pending_hash(handle)

    async def one(reviewer: Any) -> Any:
        try:
            return await approve(bench, handle, reviewer, digest, reason="race")
        except DecisionNotAccepted as refused:
            return refused
        except WorkflowUpdateRPCTimeoutOrCancelledError as unanswered:
            # signoff.service.decisions.decide lets this one through (it is not an
            # RPCError): a reviewer whose decision waited too long would read no sentence.
            return unanswered

    return list(await asyncio.gather(one(ALICE), one(BOB)))


async def reviewers_race(bench: Bench, env: dict[str, str], races: int) -> Row:
    tickets = add_refund_cases(bench.settings.resolved_database_url, TENANT, races)
    with worker_process(env, "race"):
        handles = await start_runs(bench, tickets)
        await asyncio.gather(*(pending_hash(handle) for handle in handles))
        injected_at = time.monotonic()
        # Races a few at a time: in the first full run, 100 at once (200 Updates on one
        # worker of 10 workflow task slots, on 2 busy cores) timed an Update's RPC out.
        gate = asyncio.Semaphore(RACES_AT_ONCE)

        async def gated(handle: Handle) -> list[Any]:
            async with gate:
                return await race(bench, handle)

        readings = await asyncio.gather(*(gated(handle) for handle in handles))
        finished = await ends([handle.result() for handle in handles])
    sentences: set[str] = set()
    bad: list[str] = []
    for ticket_id, read in zip(tickets, readings, strict=True):
        winners = [r for r in read if getattr(r, "status", None) == "approved"]
        losers = [r for r in read if isinstance(r, DecisionNotAccepted)]
        sentences.update(loser.message for loser in losers)
        if len(winners) != 1 or len(losers) != 1 or not losers[0].message.endswith("."):
            bad.append(f"{ticket_id}: {[describe(r) for r in read]}")
    notes = [
        f"Reviewers racing: {races - len(bad)} of {races} races had one winner and one "
        f"refusal; the loser read: " + " / ".join(f'"{s}"' for s in sorted(sentences)),
        *bad,
    ]
    row = refund_row(
        "two reviewers approve the same refund at once",
        bench,
        tickets,
        finished,
        injected_at,
        notes,
    )
    # A race without exactly one winner and one clear refusal counts as lost too.
    row.lost += len(bad)
    return row
