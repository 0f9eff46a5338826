"""A cancelled run stops where it is and still returns its outcome, status cancelled.

The cancelled activity is still running when the run ends, so each test takes its own
test server (see tests/workflow/conftest.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from signoff.service.runs import STATUS_KEY
from tests.workflow.fakes import (
    HANG,
    FakeModel,
    FakeTools,
    new_task_queue,
    replay,
    run_request,
    start,
    text_reply,
    tool_reply,
    worker,
)
from workflows.agent_run import AgentRun
from workflows.contracts import RunOutcome, RunState

STARTED_WITHIN_SECONDS = 10


async def cancel_and_wait(handle: WorkflowHandle[Any, Any]) -> RunOutcome:
    await handle.cancel()
    outcome = await handle.result()
    assert isinstance(outcome, RunOutcome)
    return outcome


async def test_cancel_while_the_model_hangs(isolated_env: WorkflowEnvironment) -> None:
    env = isolated_env
    model = FakeModel().enqueue(HANG)
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time())
    async with worker(env.client, task_queue, model):
        handle = await start(env.client, request, task_queue)
        await asyncio.wait_for(model.started.wait(), STARTED_WITHIN_SECONDS)
        running: RunState = await handle.query(AgentRun.state)

        outcome = await cancel_and_wait(handle)
        after: RunState = await handle.query(AgentRun.state)
        description = await handle.describe()
    await replay(handle)

    assert (running.status, running.turns_used, running.outcome) == ("running", 1, None)
    assert (outcome.status, outcome.reason) == ("cancelled", "cancelled")
    assert outcome.turns_used == 1
    assert after.status == "cancelled"
    assert after.outcome == outcome
    assert after.events[-1].kind == "outcome"
    assert after.events[-1].text.startswith("cancelled: cancelled")
    assert description.typed_search_attributes.get(STATUS_KEY) == "cancelled"
    assert len(model.history) == 1


async def test_cancel_while_a_tool_hangs_asks_the_model_nothing_more(
    isolated_env: WorkflowEnvironment,
) -> None:
    env = isolated_env
    # Were the cancelled call taken for a failed tool, the model would answer next.
    model = FakeModel().enqueue(tool_reply(("get_order", {})), text_reply("After the cancel."))
    tools = FakeTools({"get_order": HANG})
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time())
    async with worker(env.client, task_queue, model, tools):
        handle = await start(env.client, request, task_queue)
        await asyncio.wait_for(tools.started.wait(), STARTED_WITHIN_SECONDS)

        outcome = await cancel_and_wait(handle)
    await replay(handle)

    assert (outcome.status, outcome.reason) == ("cancelled", "cancelled")
    assert outcome.final_text is None
    assert len(model.history) == 1
