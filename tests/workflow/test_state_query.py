"""The `state` query tells what a run is doing while it lives, and how it ended after."""

from __future__ import annotations

from temporalio.testing import WorkflowEnvironment

from signoff.service.runs import STATUS_KEY
from tests.workflow.fakes import (
    FakeModel,
    FakeTools,
    Gate,
    new_task_queue,
    replay,
    run_request,
    start,
    text_reply,
    tool_reply,
    worker,
)
from workflows.agent_run import AgentRun
from workflows.contracts import RunState, Usage


async def test_state_while_running_and_after(time_skipping_env: WorkflowEnvironment) -> None:
    env = time_skipping_env
    gate = Gate()
    model = FakeModel().enqueue(
        tool_reply(("get_order", {}), tokens=5), gate, text_reply("Shipped.", tokens=7)
    )
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time(), step_budget=4, token_budget=1000)
    async with worker(env.client, task_queue, model, FakeTools()):
        handle = await start(env.client, request, task_queue)
        await gate.reached.wait()
        running: RunState = await handle.query(AgentRun.state)
        running_status = (await handle.describe()).typed_search_attributes.get(STATUS_KEY)
        gate.open()
        outcome = await handle.result()
        after: RunState = await handle.query(AgentRun.state)
        final_status = (await handle.describe()).typed_search_attributes.get(STATUS_KEY)
    await replay(handle)

    assert (running.run_id, running.tenant_id, running.ticket_id) == (
        handle.id,
        "demo",
        "T-4512",
    )
    assert (running.status, running.turns_used, running.outcome) == ("running", 2, None)
    assert (running.step_budget, running.token_budget) == (4, 1000)
    assert running.deadline == request.deadline
    assert running.usage == Usage(input_tokens=5, output_tokens=5)
    assert [event.kind for event in running.events] == ["turn", "tool_call", "tool_result", "turn"]
    assert [event.turn for event in running.events] == [1, 1, 1, 2]
    assert running.events[2].text == "turn 1: get_order -> ok"
    assert [record.name for record in running.tool_calls] == ["get_order"]
    assert running_status == "running"

    assert after.status == "completed"
    assert after.turns_used == 2
    assert after.usage == Usage(input_tokens=12, output_tokens=12)
    assert after.outcome == outcome
    assert [event.kind for event in after.events] == [
        "turn",
        "tool_call",
        "tool_result",
        "turn",
        "outcome",
    ]
    assert after.events[-1].text == "completed: answered"
    assert final_status == "completed"


async def test_state_records_a_failed_tool_call(time_skipping_env: WorkflowEnvironment) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(tool_reply(("lookup_customer", {})), text_reply("Sorry."))
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time())
    async with worker(env.client, task_queue, model):
        handle = await start(env.client, request, task_queue)
        await handle.result()
        state: RunState = await handle.query(AgentRun.state)

    (record,) = state.tool_calls
    assert (record.turn, record.name, record.ok) == (1, "lookup_customer", False)
    assert record.error is not None and "Unknown tool" in record.error
    assert "turn 1: lookup_customer -> error" in [event.text for event in state.events]
