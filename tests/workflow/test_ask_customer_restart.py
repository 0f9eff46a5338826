"""A run that waits for its customer outlives its worker: the worker stops, a day of
skipped time passes with no worker at all, a new worker (an empty workflow cache: it
replays the history) takes the customer's reply and the run completes with it."""

from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.store.started_runs import record_started_run
from signoff.service.handles import Store
from signoff.service.run_requests import run_offer
from signoff.wiring.worker_activities import worker_activities
from tests.store.outbox import replies_of
from tests.workflow.approvals import (
    APPROVAL_RUN_DEADLINE,
    SKIPPING_MAX_AGE,
    TEST_KEYS,
    gate_worker,
    store_parts,
)
from tests.workflow.fakes import (
    FakeModel,
    generous_limits,
    limited,
    new_task_queue,
    run_request,
    start,
    text_reply,
    tool_reply,
)
from tests.workflow.run_keys import keyed_limits
from tests.workflow.test_ask_customer import (
    ANSWER,
    ASK,
    ASKING,
    QUESTION,
    reply,
    send,
    waiting_for_customer,
)
from tests.workflow.test_python_tools import tool_results
from workflows.agent_run import AgentRun
from workflows.sandbox import workflow_runner


def uncached_worker(
    env: WorkflowEnvironment, model: FakeModel, engine: Engine, queue: str
) -> Worker:
    """gate_worker's worker, but caching no run: it leaves no sticky queue behind, which
    the time-skipping server, unlike a cluster, would not hand over to the next worker."""
    limits = keyed_limits(generous_limits, TEST_KEYS, SKIPPING_MAX_AGE)
    parts = store_parts(engine, model, profiles=ASKING)
    return Worker(
        env.client,
        task_queue=queue,
        workflows=[AgentRun],
        activities=list(worker_activities(parts, replacing=[limited(model, limits)])),
        workflow_runner=workflow_runner(),
        max_cached_workflows=0,
        max_heartbeat_throttle_interval=timedelta(milliseconds=1),
    )


async def test_the_wait_outlives_its_worker_and_a_day_without_one(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env, engine = time_skipping_env, seeded_engine
    model = FakeModel().enqueue(tool_reply(ASK), text_reply("Thanks for the photo."))
    queue = new_task_queue()
    offer = run_offer(Store(engine), ASKING, "demo").fields()
    request = run_request(
        await env.get_current_time(), ticket_id="T-1042", deadline=APPROVAL_RUN_DEADLINE, **offer
    )
    record_started_run(engine, request)
    async with uncached_worker(env, model, engine, queue):
        handle = await start(env.client, request, queue)
        before = await waiting_for_customer(handle)
    await env.sleep(timedelta(days=1))
    async with gate_worker(env, model, engine, queue, profiles=ASKING):
        # The new worker replays the run from its history: still waiting, since then.
        again = await waiting_for_customer(handle)
        assert again.waiting_for_customer_since == before.waiting_for_customer_since
        await send(handle, reply())
        outcome = await handle.result()
        after = await handle.query(AgentRun.state)
    assert outcome.status == "completed"
    assert len(model.history) == 2  # the question's turn was not asked again
    assert before.waiting_for_customer_since is not None
    sent = [event for event in after.events if event.text.startswith("question sent")]
    assert [event.at for event in sent] == [before.waiting_for_customer_since]
    assert [question.text for question in replies_of(engine, "demo", "T-1042")] == [QUESTION]
    (result,) = tool_results(model, 1)
    assert json.loads(result.content)["customer_reply"]["text"] == ANSWER
