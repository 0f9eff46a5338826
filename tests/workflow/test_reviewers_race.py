"""Two reviewers approve the same refund at the same moment, many times over: each time
exactly one approval takes effect (one refund), and the other reviewer reads a sentence
saying why theirs did not.

The quick form of `python -m bench.chaos`'s race (issue 13, "Fault injection"): the real
workflow, gateway, ledger and decision verifier on the time-skipping server, the demo
script as the model, one fresh order per run (four eyes counts every refund waiting on
an order, so the runs must not share one). Both decisions of a race are sent together,
before either answers.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import Engine
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from activities.model_turn import ModelTurns
from activities.models.scripted import SCRIPTS_DIR, ScriptedModel
from activities.store import list_refunds
from signoff.wiring.worker_activities import worker_activities
from testkit.refund_cases import add_refund_cases
from tests.workflow.approvals import (
    APPROVAL_RUN_DEADLINE,
    UPDATE_SECONDS,
    decision,
    pending_actions,
    store_parts,
    with_proof,
)
from tests.workflow.fakes import (
    limited,
    new_task_queue,
    replay,
    run_request,
    start,
    worker,
)
from workflows.actions import DecisionResult
from workflows.agent_run import AgentRun
from workflows.contracts import ModelRef, RunOutcome

RACES = 12
DEMO = ModelRef(provider="scripted", model_id="demo")
# Bounds on waiting (real time), never assertions on how long things took.
WAITING_SECONDS = 60


async def send(handle: WorkflowHandle[Any, Any], reviewer: str, engine: Engine, digest: str) -> Any:
    """What the reviewer reads: the decision's result, or the refusal's sentence."""
    try:
        update = handle.execute_update(
            AgentRun.decide, with_proof(handle, decision(engine, reviewer, digest))
        )
        return await asyncio.wait_for(update, UPDATE_SECONDS)
    except WorkflowUpdateFailedError as refused:
        assert isinstance(refused.cause, ApplicationError), refused.cause
        return refused.cause.message


async def test_two_reviewers_approving_at_once_make_one_refund_each_time(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env, engine = time_skipping_env, seeded_engine
    tickets = add_refund_cases(engine.url.render_as_string(), "demo", RACES)
    model = ModelTurns({"scripted": lambda: ScriptedModel(SCRIPTS_DIR)})
    task_queue = new_task_queue()
    async with worker(
        env.client,
        task_queue,
        model,
        activities=worker_activities(store_parts(engine, model), replacing=[limited(model)]),
    ):
        now = await env.get_current_time()
        handles = [
            await start(
                env.client,
                run_request(now, ticket_id=ticket, model=DEMO, deadline=APPROVAL_RUN_DEADLINE),
                task_queue,
            )
            for ticket in tickets
        ]

        async def race(handle: WorkflowHandle[Any, Any]) -> list[Any]:
            (action,) = await pending_actions(handle, within=WAITING_SECONDS)
            return list(
                await asyncio.gather(
                    send(handle, "alice", engine, action.action_hash),
                    send(handle, "bob", engine, action.action_hash),
                )
            )

        readings = await asyncio.gather(*(race(handle) for handle in handles))
        # One at a time: with a dozen result() calls at once, the time-skipping test
        # server failed its unlockTimeSkipping RPC (an internal error, not the runs').
        outcomes = [await handle.result() for handle in handles]
    await replay(handles[0])

    for ticket, read, outcome in zip(tickets, readings, outcomes, strict=True):
        (won,) = [r for r in read if isinstance(r, DecisionResult)]
        (lost,) = [r for r in read if isinstance(r, str)]
        assert won.status == "approved", won
        assert lost == "This request was already decided (approved).", lost
        (row,) = list_refunds(engine, "demo", ticket.removeprefix("T-"))
        assert isinstance(outcome, RunOutcome)
        assert (outcome.status, outcome.reason) == ("completed", "answered"), outcome.detail
        assert outcome.effects_performed == [
            f"refund 60.00 EUR on order {row.order_id} (refund {row.id})"
        ]
        assert [d.kind for d in outcome.decisions if d.kind == "approved"] == ["approved"]
