"""The deadline ends the run, even while an activity hangs and never answers.

These runs end with an activity still running, so each takes its own test server
(see tests/workflow/conftest.py). The hung fakes sleep through the environment, which
lets virtual time pass while they run. The deadline is shorter than the activity's own
timeout: an activity timing out while it sleeps through the test server unbalances the
server's time-skipping lock (https://github.com/temporalio/sdk-java/pull/3092).
"""

from __future__ import annotations

from datetime import timedelta

from temporalio.testing import WorkflowEnvironment

from tests.workflow.fakes import (
    HANG,
    FakeModel,
    FakeTools,
    new_task_queue,
    run_request,
    run_to_end,
    start,
    text_reply,
    tool_reply,
    worker,
)
from workflows import policy
from workflows.contracts import RunOutcome


async def test_deadline_while_the_model_hangs(isolated_env: WorkflowEnvironment) -> None:
    deadline = policy.MODEL_TURN_TIMEOUT - timedelta(minutes=1)
    model = FakeModel(isolated_env).enqueue(HANG)

    outcome = await run_to_end(isolated_env, model, deadline=deadline)

    assert (outcome.status, outcome.reason) == ("failed", "deadline_exceeded")
    assert "deadline" in outcome.detail
    assert outcome.turns_used == 1
    assert len(model.history) == 1


async def test_deadline_while_a_tool_hangs(isolated_env: WorkflowEnvironment) -> None:
    deadline = policy.TOOL_CALL_TIMEOUT / 2
    # Were the hung call taken for a failed tool, the model would answer next.
    model = FakeModel().enqueue(tool_reply(("get_order", {})), text_reply("Too late."))
    tools = FakeTools({"get_order": HANG}, env=isolated_env)

    outcome = await run_to_end(isolated_env, model, tools, deadline=deadline)

    assert (outcome.status, outcome.reason) == ("failed", "deadline_exceeded")
    assert outcome.final_text is None
    assert len(model.history) == 1
    assert len(tools.calls) == 1


async def test_deadline_already_past_runs_nothing(time_skipping_env: WorkflowEnvironment) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(text_reply("Never asked."))
    task_queue = new_task_queue()
    # start_run refuses such a request; the workflow must hold on its own too.
    request = run_request(await env.get_current_time(), deadline=-timedelta(minutes=1))
    async with worker(env.client, task_queue, model):
        handle = await start(env.client, request, task_queue)
        outcome = await handle.result()

    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, outcome.reason) == ("failed", "deadline_exceeded")
    assert outcome.turns_used == 0
    assert model.history == []
