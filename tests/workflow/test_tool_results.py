"""Every tool call gets exactly one result, in one user message, correlated by its id.

A call the catalog refuses never reaches the tool activity; a tool that fails becomes
an error result the model can read, with a safe message and no trace.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import Engine
from temporalio.api.enums.v1 import EventType
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from activities import tool_gateway
from activities.tool_gateway import ToolGateway
from tests.workflow.fakes import (
    FakeModel,
    FakeTools,
    new_task_queue,
    run_request,
    run_to_end,
    start,
    text_reply,
    tool_reply,
    tool_uses,
    worker,
)
from workflows import policy
from workflows.contracts import (
    RUN_TOOL_ACTIVITY,
    ModelRequest,
    ToolCallInput,
    ToolResult,
    ToolResultBlock,
)
from workflows.tool_catalog import BUILTIN_AGENT_TOOLS

SECRET = "postgres://signoff:hunter2@db.internal/shop"


def results_of_turn(request: ModelRequest) -> list[ToolResultBlock]:
    """The tool results sent back with `request`: its last message, which must hold only them."""
    last = request.messages[-1]
    assert last.role == "user"
    blocks = [block for block in last.content if isinstance(block, ToolResultBlock)]
    assert len(blocks) == len(last.content)
    return blocks


def assert_safe(text: str) -> None:
    assert "Traceback" not in text
    assert SECRET not in text
    assert ".py" not in text


async def test_unknown_tool_gets_an_error_result_and_the_model_recovers(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    call = tool_reply(("lookup_customer", {"email": "sam@example.com"}))
    model = FakeModel().enqueue(call, text_reply("A colleague will look at your ticket."))
    tools = FakeTools()

    outcome = await run_to_end(time_skipping_env, model, tools)

    assert tools.calls == []
    (result,) = results_of_turn(model.history[1])
    assert result.tool_use_id == tool_uses(call)[0].id
    assert result.is_error
    assert "'lookup_customer'" in result.content
    listed = result.content.partition("The tools that exist are:")[2]
    # A run without a profile offers the built-in agent's tools, and names them.
    offered = {tool.name for tool in BUILTIN_AGENT_TOOLS}
    assert set(re.findall(r"\w+", listed)) == offered >= {"read_ticket", "get_order"}
    assert (outcome.status, outcome.final_text) == (
        "completed",
        "A colleague will look at your ticket.",
    )
    (record,) = outcome.tool_calls
    assert (record.name, record.ok, record.error) == ("lookup_customer", False, result.content)


async def test_invalid_arguments_get_the_validation_message(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    call = tool_reply(("get_order", {"order_id": "C-3107"}))
    model = FakeModel().enqueue(call, text_reply("Let me check."))
    tools = FakeTools()

    await run_to_end(time_skipping_env, model, tools)

    assert tools.calls == []
    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    assert result.content.startswith("Invalid arguments for 'get_order': order_id:")
    assert "Extra inputs are not permitted" in result.content


async def test_two_calls_in_one_turn_get_two_results_in_one_message(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    call = tool_reply(("read_ticket", {}), ("get_order", {}))
    model = FakeModel().enqueue(call, text_reply("Your order has shipped."))
    tools = FakeTools({"read_ticket": '{"ticket": 1}', "get_order": '{"order": 2}'})

    outcome = await run_to_end(time_skipping_env, model, tools)

    read, get = tool_uses(call)
    assert results_of_turn(model.history[1]) == [
        ToolResultBlock(tool_use_id=read.id, content='{"ticket": 1}'),
        ToolResultBlock(tool_use_id=get.id, content='{"order": 2}'),
    ]
    assert len(model.history[1].messages) == 3  # opening, assistant, one user message
    # The calls run concurrently: the order they reach the tool is not theirs to keep.
    assert sorted(c.tool_use_id for c in tools.calls) == sorted([read.id, get.id])
    assert [r.tool_use_id for r in outcome.tool_calls] == [read.id, get.id]


async def test_refused_and_valid_calls_in_one_turn_keep_their_order(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    call = tool_reply(("lookup_customer", {}), ("get_order", {}))
    model = FakeModel().enqueue(call, text_reply("Your order has shipped."))
    tools = FakeTools()

    await run_to_end(time_skipping_env, model, tools)

    refused, valid = results_of_turn(model.history[1])
    assert [refused.tool_use_id, valid.tool_use_id] == [u.id for u in tool_uses(call)]
    assert (refused.is_error, valid.is_error) == (True, False)
    assert [c.name for c in tools.calls] == ["get_order"]


async def test_error_result_from_the_tool_reaches_the_model_flagged(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    def missing(call: ToolCallInput) -> ToolResult:
        return ToolResult(tool_use_id=call.tool_use_id, content="No such ticket.", is_error=True)

    model = FakeModel().enqueue(tool_reply(("read_ticket", {})), text_reply("Sorry."))

    outcome = await run_to_end(time_skipping_env, model, FakeTools({"read_ticket": missing}))

    (result,) = results_of_turn(model.history[1])
    assert (result.content, result.is_error) == ("No such ticket.", True)
    assert outcome.tool_calls[0].ok is False


async def test_tool_raising_a_non_retryable_error_gives_a_safe_error_result(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    def crash(call: ToolCallInput) -> ToolResult:
        raise ApplicationError(f"cannot connect to {SECRET}", non_retryable=True)

    model = FakeModel().enqueue(tool_reply(("get_order", {})), text_reply("Sorry."))
    tools = FakeTools({"get_order": crash})

    outcome = await run_to_end(time_skipping_env, model, tools)

    assert len(tools.calls) == 1
    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    assert "get_order" in result.content
    assert_safe(result.content)
    assert outcome.status == "completed"


# Slow: the default backoff between five attempts (1 + 2 + 4 + 8 s), in real time.
@pytest.mark.slow
async def test_tool_failing_every_attempt_gives_an_error_result_after_the_retries(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    def crash(call: ToolCallInput) -> ToolResult:
        raise RuntimeError(f"cannot connect to {SECRET}")

    model = FakeModel().enqueue(tool_reply(("get_order", {})), text_reply("Sorry."))
    tools = FakeTools({"get_order": crash})

    outcome = await run_to_end(time_skipping_env, model, tools)

    assert len(tools.calls) == policy.TOOL_CALL_MAX_ATTEMPTS
    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    assert_safe(result.content)
    assert outcome.status == "completed"


async def test_real_gateway_turns_a_crashing_tool_into_a_safe_error_result(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def crash(engine: Engine, call: ToolCallInput) -> str:
        raise ConnectionError(f"cannot connect to {SECRET}")

    monkeypatch.setitem(tool_gateway.TOOL_FUNCTIONS, "get_order", crash)
    model = FakeModel().enqueue(tool_reply(("get_order", {})), text_reply("Sorry."))

    outcome = await run_to_end(time_skipping_env, model, ToolGateway(seeded_engine))

    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    assert "internal error (reference " in result.content
    assert_safe(result.content)
    assert outcome.tool_calls[0].ok is False


async def test_long_tool_result_is_cut_and_says_so(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    tools = FakeTools({"read_ticket": "x" * (policy.MAX_TOOL_RESULT_CHARS * 3)})
    model = FakeModel().enqueue(tool_reply(("read_ticket", {})), text_reply("Done."))

    await run_to_end(time_skipping_env, model, tools)

    (result,) = results_of_turn(model.history[1])
    assert len(result.content) <= policy.MAX_TOOL_RESULT_CHARS
    assert "[cut:" in result.content
    assert not result.is_error


async def test_two_reads_of_one_turn_are_scheduled_together_before_either_answers(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    """Independent reads run at the same time: the run schedules both tool calls in one
    workflow task, so neither waits for the other's answer."""
    call = tool_reply(("read_ticket", {}), ("get_order", {}))
    model = FakeModel().enqueue(call, text_reply("Your order has shipped."))
    tools = FakeTools({"read_ticket": '{"ticket": 1}', "get_order": '{"order": 2}'})
    task_queue = new_task_queue()
    request = run_request(await time_skipping_env.get_current_time())
    async with worker(time_skipping_env.client, task_queue, model, tools):
        handle = await start(time_skipping_env.client, request, task_queue)
        await handle.result()
    events = (await handle.fetch_history()).events
    scheduled = [
        index
        for index, event in enumerate(events)
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == RUN_TOOL_ACTIVITY
    ]
    assert len(scheduled) == 2
    between = [event.event_type for event in events[scheduled[0] : scheduled[1]]]
    # Nothing between the two schedules: no answer, no other workflow task.
    assert EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED not in between
    assert EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED not in between
