"""The same request started twice is one run: start_run finds the run it already started.

After a run completes, the time-skipping server may move its clock far ahead (nothing is
left to wait for), so each start passes the time it means explicitly.
"""

from __future__ import annotations

from temporalio.testing import WorkflowEnvironment

from signoff.service.runs import run_id_for, start_run
from tests.workflow.fakes import (
    FakeModel,
    Gate,
    new_task_queue,
    run_request,
    text_reply,
    worker,
)
from workflows.contracts import RunOutcome


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
        first, first_new = await start_run(env.client, request, task_queue, now=now)
        await gate.reached.wait()
        second, second_new = await start_run(env.client, request, task_queue, now=now)
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
        first, _ = await start_run(env.client, request, task_queue, now=now)
        first_outcome = await first.result()
        # A retry of the same request, still before its deadline.
        again, new = await start_run(env.client, request, task_queue, now=now)
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
        first, first_new = await start_run(env.client, run_request(now), task_queue, now=now)
        await first.result()
        now = await env.get_current_time()
        second, second_new = await start_run(env.client, run_request(now), task_queue, now=now)
        outcome = await second.result()

    assert (first_new, second_new) == (True, True)
    assert first.id != second.id
    assert isinstance(outcome, RunOutcome) and outcome.final_text == "Two."
    assert len(model.history) == 2
