"""The same request started twice is one run: start_run finds the run it already started.

After a run completes, the time-skipping server may move its clock far ahead (nothing is
left to wait for), so each start passes the time it means explicitly.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError
from temporalio.testing import WorkflowEnvironment

from signoff.service.handles import Runs
from signoff.service.runs import RunRequestRejected, start_run
from tests.workflow.fakes import (
    FakeModel,
    Gate,
    new_task_queue,
    run_request,
    text_reply,
    worker,
)
from workflows.agent_run import AgentRun
from workflows.contracts import RunOutcome, run_id_for


async def test_second_start_while_running_returns_the_same_run(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    env = time_skipping_env
    gate = Gate()
    model = FakeModel().enqueue(gate, text_reply("Shipped."), text_reply("A second run."))
    task_queue = new_task_queue()
    now = await env.get_current_time()
    request = run_request(now)
    async with worker(env.client, task_queue, model):
        first, first_new = await start_run(Runs(env.client), request, task_queue, now=now)
        await gate.reached.wait()
        second, second_new = await start_run(Runs(env.client), request, task_queue, now=now)
        gate.open()
        outcome = await second.result()

    assert (first_new, second_new) == (True, False)
    assert first.id == second.id == run_id_for("demo", request.request_id)
    assert isinstance(outcome, RunOutcome) and outcome.final_text == "Shipped."
    assert len(model.history) == 1


async def test_second_start_after_completion_returns_the_finished_run(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(text_reply("Shipped."), text_reply("A second run."))
    task_queue = new_task_queue()
    now = await env.get_current_time()
    request = run_request(now)
    async with worker(env.client, task_queue, model):
        first, _ = await start_run(Runs(env.client), request, task_queue, now=now)
        first_outcome = await first.result()
        # A retry of the same request, still before its deadline.
        again, new = await start_run(Runs(env.client), request, task_queue, now=now)
        again_outcome = await again.result()

    assert new is False
    assert again.id == first.id
    assert again_outcome == first_outcome
    assert len(model.history) == 1


async def test_another_request_id_is_another_run(time_skipping_env: WorkflowEnvironment) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(text_reply("One."), text_reply("Two."))
    task_queue = new_task_queue()
    async with worker(env.client, task_queue, model):
        now = await env.get_current_time()
        first, first_new = await start_run(Runs(env.client), run_request(now), task_queue, now=now)
        await first.result()
        now = await env.get_current_time()
        second, second_new = await start_run(
            Runs(env.client), run_request(now), task_queue, now=now
        )
        outcome = await second.result()

    assert (first_new, second_new) == (True, True)
    assert first.id != second.id
    assert isinstance(outcome, RunOutcome) and outcome.final_text == "Two."
    assert len(model.history) == 2


async def test_a_run_id_held_by_another_tenant_is_never_returned(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    # The id `demo` + `x-1` asks for is held by a run of tenant globex (a crafted or legacy
    # run): start_run must refuse, not hand demo the globex run.
    env = time_skipping_env
    model = FakeModel().enqueue(Gate(), text_reply("never"))
    task_queue = new_task_queue()
    now = await env.get_current_time()
    demo_request = run_request(now, request_id="x-1")
    globex_request = run_request(now, request_id="other", tenant_id="globex")
    async with worker(env.client, task_queue, model):
        squatter = await env.client.start_workflow(
            AgentRun.run,
            globex_request,
            id=run_id_for("demo", "x-1"),
            task_queue=task_queue,
        )
        with pytest.raises(RunRequestRejected, match="not tenant 'demo'"):
            await start_run(Runs(env.client), demo_request, task_queue, now=now)
        await squatter.terminate("test over")


def test_tenant_ids_cannot_make_two_tenants_share_a_run_id() -> None:
    # `demo` + `x-1` and `demo-x` + `1` would both be run-demo-x-1: '-' is refused.
    now = datetime.now(UTC)
    assert run_request(now, request_id="x-1").tenant_id == "demo"
    with pytest.raises(ValidationError, match="may not contain '-'"):
        run_request(now, tenant_id="demo-x", request_id="1")
