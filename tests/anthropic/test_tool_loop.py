"""The tool loop on the wire: the exact body of every request a run sends to Claude."""

from __future__ import annotations

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.model_turn import ModelTurns
from tests.anthropic.wire import (
    RecordingGateway,
    agent_body,
    assistant,
    opening,
    result,
    run_claude,
    unanswered_tool_uses,
    user,
)
from tests.anthropic_server import FakeMessagesApi, message, text, tool_use
from tests.workflow.fakes import FakeTools


async def test_tool_then_answer_with_text_before_the_call(
    time_skipping_env: WorkflowEnvironment,
    api: FakeMessagesApi,
    model_turns: ModelTurns,
    seeded_engine: Engine,
) -> None:
    # Text precedes the first call: the loop reads every block, never content[0].
    api.reply(
        message([text("Let me read the ticket."), tool_use("toolu_01", "read_ticket")], "tool_use"),
        message([tool_use("toolu_02", "get_order")], "tool_use"),
        message([text("Your order 4512 is shipped. Tracking number: TRK-88.")], "end_turn"),
    )
    gateway = RecordingGateway(seeded_engine)

    run = await run_claude(time_skipping_env, model_turns, gateway, ticket_id="T-4512")

    assert (run.outcome.status, run.outcome.reason) == ("completed", "answered")
    assert run.outcome.final_text == "Your order 4512 is shipped. Tracking number: TRK-88."
    ticket, order = gateway.results["toolu_01"].content, gateway.results["toolu_02"].content
    assert "TRK-88" in order  # the real gateway read the seeded store
    first = opening(run.request)
    turn_1 = assistant(
        {"type": "text", "text": "Let me read the ticket."},
        {"type": "tool_use", "id": "toolu_01", "name": "read_ticket", "input": {}},
    )
    turn_2 = assistant({"type": "tool_use", "id": "toolu_02", "name": "get_order", "input": {}})
    assert api.bodies == [
        agent_body(run.request, [first]),
        agent_body(run.request, [first, turn_1, user(result("toolu_01", ticket))]),
        agent_body(
            run.request,
            [
                first,
                turn_1,
                user(result("toolu_01", ticket)),
                turn_2,
                user(result("toolu_02", order)),
            ],
        ),
    ]


async def test_two_calls_in_one_turn_are_answered_in_one_message_in_order(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    api.reply(
        message([tool_use("toolu_b", "get_order"), tool_use("toolu_a", "read_ticket")], "tool_use"),
        message([text("Done.")], "end_turn"),
    )
    tools = FakeTools({"get_order": '{"found": false}', "read_ticket": '{"text": "Hi"}'})

    run = await run_claude(time_skipping_env, model_turns, tools)

    assert run.outcome.reason == "answered"
    second = api.bodies[1]["messages"]
    assert second[1:] == [
        assistant(
            {"type": "tool_use", "id": "toolu_b", "name": "get_order", "input": {}},
            {"type": "tool_use", "id": "toolu_a", "name": "read_ticket", "input": {}},
        ),
        # One user message, the results first and only, in the order of the calls.
        user(result("toolu_b", '{"found": false}'), result("toolu_a", '{"text": "Hi"}')),
    ]
    assert unanswered_tool_uses(second) == []


async def test_failed_calls_go_back_as_error_results(
    time_skipping_env: WorkflowEnvironment,
    api: FakeMessagesApi,
    model_turns: ModelTurns,
    seeded_engine: Engine,
) -> None:
    # A tool that does not exist (refused by the catalog, no activity) and a real
    # gateway error (T-7001 belongs to another tenant): both flagged is_error.
    api.reply(
        message(
            [
                tool_use("toolu_x", "delete_account", {"customer": "all"}),
                tool_use("toolu_t", "read_ticket"),
            ],
            "tool_use",
        ),
        message([text("I could not read your ticket.")], "end_turn"),
    )
    gateway = RecordingGateway(seeded_engine)

    run = await run_claude(time_skipping_env, model_turns, gateway, ticket_id="T-7001")

    assert run.outcome.reason == "answered"
    assert list(gateway.results) == ["toolu_t"]  # the unknown tool reached no activity
    refused = (
        "Unknown tool 'delete_account'. The tools that exist are: get_order, read_ticket, refund."
    )
    assert api.bodies[1]["messages"][-1] == user(
        result("toolu_x", refused, is_error=True),
        result("toolu_t", gateway.results["toolu_t"].content, is_error=True),
    )
    assert [record.ok for record in run.outcome.tool_calls] == [False, False]


async def test_thinking_goes_back_verbatim_with_the_calls_it_led_to(
    time_skipping_env: WorkflowEnvironment,
    api: FakeMessagesApi,
    model_turns: ModelTurns,
    seeded_engine: Engine,
) -> None:
    # Thinking asked for (SIGNOFF_ANTHROPIC_THINKING_BUDGET): every agent turn sends the
    # budget, and in a tool-use cycle the thinking goes back exactly as it came,
    # signature included, ahead of the calls. The loop never reads it as an answer.
    thinking = {"type": "thinking", "thinking": "Read the ticket first.", "signature": "c2ln"}
    redacted = {"type": "redacted_thinking", "data": "RW5jcnlwdGVk"}
    api.reply(
        message([thinking, redacted, tool_use("toolu_01", "read_ticket")], "tool_use"),
        message(
            [{**thinking, "thinking": "Now answer."}, text("Your order 4512 has shipped.")],
            "end_turn",
        ),
    )
    gateway = RecordingGateway(seeded_engine)

    run = await run_claude(
        time_skipping_env,
        model_turns,
        gateway,
        ticket_id="T-4512",
        thinking_budget_tokens=2048,
        max_tokens=4096,
    )

    assert (run.outcome.status, run.outcome.final_text) == (
        "completed",
        "Your order 4512 has shipped.",
    )
    asked = {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    first = opening(run.request)
    turn_1 = assistant(
        thinking,
        redacted,
        {"type": "tool_use", "id": "toolu_01", "name": "read_ticket", "input": {}},
    )
    ticket = gateway.results["toolu_01"].content
    assert api.bodies == [
        {**agent_body(run.request, [first]), **asked},
        {**agent_body(run.request, [first, turn_1, user(result("toolu_01", ticket))]), **asked},
    ]
