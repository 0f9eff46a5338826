"""A `decide` in flight when its run ends still gets its answer: the run waits for every
handler before it completes (patch `handlers-finish-first`).

Here the reviewer's decision is still being verified (the `verify_decision` local
activity is held) when the run is cancelled. The check holds the workflow task, so the
cancellation reaches the run only after it: the reviewer gets the run's answer, then the
run ends cancelled, and no UnfinishedUpdateHandlersWarning is raised (warnings are
errors in this suite). The approved refund is scheduled in the same workflow task, and
the cancellation may end the run while it runs: its own server (`isolated_env`).
"""

from __future__ import annotations

import asyncio

from sqlalchemy import Engine
from temporalio import activity
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from activities.decision_verifier import DecisionVerifier
from activities.refunds import RefundActivities
from signoff.wiring.worker_activities import worker_activities
from tests.workflow.approvals import (
    APPROVAL_RUN_DEADLINE,
    SKIPPING_MAX_AGE,
    TEST_KEYS,
    UPDATE_SECONDS,
    WAIT_SECONDS,
    decision,
    pending_actions,
    store_parts,
    with_proof,
)
from tests.workflow.fakes import (
    FakeModel,
    limited,
    new_task_queue,
    replay,
    run_request,
    start,
    text_reply,
    tool_reply,
    worker,
)
from workflows.actions import DecisionResult
from workflows.agent_run import AgentRun
from workflows.contracts import RunOutcome
from workflows.decision_check import VERIFY_DECISION_ACTIVITY, DecisionCheck, DecisionProof


class HeldVerifier:
    """The real verifier, held until the test lets it answer."""

    def __init__(self, engine: Engine) -> None:
        self._real = DecisionVerifier(engine, TEST_KEYS, SKIPPING_MAX_AGE)
        self.reached = asyncio.Event()
        self.release = asyncio.Event()

    @activity.defn(name=VERIFY_DECISION_ACTIVITY)
    async def verify_decision(self, check: DecisionCheck) -> DecisionProof:
        self.reached.set()
        await self.release.wait()
        return await self._real.verify_decision(check)


async def test_a_decide_in_flight_answers_before_the_run_ends(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = isolated_env
    model = FakeModel().enqueue(
        tool_reply(("refund", {"amount": "89.90", "reason": "Broken vase."})),
        text_reply("Done."),
    )
    verifier = HeldVerifier(seeded_engine)
    refunds = RefundActivities(seeded_engine, TEST_KEYS)
    task_queue = new_task_queue()
    request = run_request(
        await env.get_current_time(), ticket_id="T-1042", deadline=APPROVAL_RUN_DEADLINE
    )
    parts = store_parts(seeded_engine, model, refunds=refunds)
    async with worker(
        env.client,
        task_queue,
        model,
        # The held verifier in place of the real one, under the same name.
        activities=worker_activities(parts, replacing=[limited(model), verifier.verify_decision]),
    ):
        handle = await start(env.client, request, task_queue)
        (action,) = await pending_actions(handle)
        sent = with_proof(handle, decision(seeded_engine, "alice", action.action_hash))
        # Not accepted before the check answers: the acceptance leaves with the
        # workflow task the check holds.
        update = asyncio.create_task(handle.execute_update(AgentRun.decide, sent))
        await asyncio.wait_for(verifier.reached.wait(), WAIT_SECONDS)
        await handle.cancel()
        verifier.release.set()
        try:
            answer: DecisionResult | ApplicationError = await asyncio.wait_for(
                update, UPDATE_SECONDS
            )
        except WorkflowUpdateFailedError as refused:
            assert isinstance(refused.cause, ApplicationError), refused.cause
            answer = refused.cause
        outcome = await handle.result()
    await replay(handle)

    # Without the wait the run completes under the update, which never gets an answer.
    assert isinstance(answer, DecisionResult | ApplicationError)
    assert isinstance(outcome, RunOutcome)
    assert outcome.status == "cancelled"
