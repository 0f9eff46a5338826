"""A final answer ends the run: in one turn, or after tool calls whose results go back."""

from __future__ import annotations

from temporalio.testing import WorkflowEnvironment

from tests.workflow.fakes import (
    FakeModel,
    FakeTools,
    run_to_end,
    text_reply,
    tool_reply,
    tool_uses,
)
from workflows import policy
from workflows.contracts import Message, ModelRef, TextBlock, ToolResultBlock, Usage
from workflows.tool_catalog import offered_tools


async def test_answer_in_one_turn(time_skipping_env: WorkflowEnvironment) -> None:
    model = FakeModel().enqueue(text_reply("Your order 4512 has shipped.", tokens=12))

    outcome = await run_to_end(time_skipping_env, model)

    assert (outcome.status, outcome.reason) == ("completed", "answered")
    assert outcome.final_text == "Your order 4512 has shipped."
    assert outcome.turns_used == 1
    assert outcome.usage == Usage(input_tokens=12, output_tokens=12)
    assert outcome.tool_calls == []
    assert outcome.scripted is True
    assert outcome.model == ModelRef(provider="scripted", model_id="fake")
    assert len(model.history) == 1


async def test_first_request_offers_the_catalog_and_the_ticket(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    model = FakeModel().enqueue(text_reply("Hello."))

    await run_to_end(time_skipping_env, model, ticket_id="T-1042", max_tokens=512)

    (request,) = model.history
    assert request.system == policy.SYSTEM_PROMPT
    assert [tool.name for tool in request.tools] == [tool.name for tool in offered_tools()]
    assert request.max_tokens == 512
    assert request.user_hash is not None and "ops-1" not in request.user_hash
    (opening,) = request.messages
    assert opening.role == "user"
    assert isinstance(opening.content[0], TextBlock)
    assert "Ticket id: T-1042" in opening.content[0].text


async def test_tool_then_answer(time_skipping_env: WorkflowEnvironment) -> None:
    call = tool_reply(("read_ticket", {}), text="Let me read the ticket.", tokens=7)
    model = FakeModel().enqueue(call, text_reply("Your order has shipped.", tokens=11))
    tools = FakeTools({"read_ticket": '{"text": "Where is my order?"}'})

    outcome = await run_to_end(time_skipping_env, model, tools)

    assert (outcome.status, outcome.reason) == ("completed", "answered")
    assert outcome.final_text == "Your order has shipped."
    assert outcome.turns_used == 2
    assert outcome.usage == Usage(input_tokens=18, output_tokens=18)
    second = model.history[1]
    assert second.messages[:2] == model.history[0].messages + [
        Message(role="assistant", content=list(call.content))
    ]
    (tool_use,) = tool_uses(call)
    assert second.messages[2] == Message(
        role="user",
        content=[
            ToolResultBlock(tool_use_id=tool_use.id, content='{"text": "Where is my order?"}')
        ],
    )
    assert len(second.messages) == 3
    (record,) = outcome.tool_calls
    assert (record.turn, record.tool_use_id, record.name, record.ok) == (
        1,
        tool_use.id,
        "read_ticket",
        True,
    )


async def test_tool_call_carries_the_runs_targets(time_skipping_env: WorkflowEnvironment) -> None:
    call = tool_reply(("get_order", {}))
    model = FakeModel().enqueue(call, text_reply("Done."))
    tools = FakeTools()

    outcome = await run_to_end(time_skipping_env, model, tools, ticket_id="T-1042")

    (tool_call,) = tools.calls
    (tool_use,) = tool_uses(call)
    assert (tool_call.run_id, tool_call.tenant_id, tool_call.ticket_id) == (
        outcome.run_id,
        "demo",
        "T-1042",
    )
    assert tool_call.tool_use_id == tool_use.id
    assert tool_call.idempotency_key == f"{outcome.run_id}:get_order:{tool_use.id}"
