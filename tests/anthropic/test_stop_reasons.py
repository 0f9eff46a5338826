"""Every stop reason of the Messages API, mapped to the loop's neutral outcome."""

from __future__ import annotations

from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment

from activities.model_turn import ModelTurns
from tests.anthropic.wire import agent_body, assistant, opening, result, run_claude, user
from tests.anthropic_server import FakeMessagesApi, message, text, tool_use
from tests.workflow.fakes import FakeTools


@pytest.mark.parametrize(
    ("stop_reason", "content", "status", "reason"),
    [
        ("end_turn", [text("Your parcel left today.")], "completed", "answered"),
        ("stop_sequence", [text("Your parcel left today.")], "completed", "answered"),
        ("max_tokens", [text("Your parcel left")], "failed", "truncated_reply"),
        ("refusal", [], "failed", "refusal"),
        ("model_context_window_exceeded", [text("Your")], "failed", "context_window_exceeded"),
        # Done, but with nothing to say: not an answer.
        ("end_turn", [], "failed", "empty_reply"),
    ],
)
async def test_a_final_stop_reason_ends_the_run_with_its_outcome(
    time_skipping_env: WorkflowEnvironment,
    api: FakeMessagesApi,
    model_turns: ModelTurns,
    stop_reason: str,
    content: list[dict[str, Any]],
    status: str,
    reason: str,
) -> None:
    api.reply(message(content, stop_reason))

    run = await run_claude(time_skipping_env, model_turns, FakeTools())

    assert (run.outcome.status, run.outcome.reason) == (status, reason)
    assert len(api.requests) == 1
    if reason == "answered":
        assert run.outcome.final_text == "Your parcel left today."
    else:
        assert run.outcome.final_text is None


async def test_tool_use_runs_the_calls_and_asks_again(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    api.reply(
        message([tool_use("toolu_1", "get_order")], "tool_use"),
        message([text("Shipped.")], "end_turn"),
    )
    tools = FakeTools({"get_order": '{"found": true}'})

    run = await run_claude(time_skipping_env, model_turns, tools)

    assert run.outcome.reason == "answered"
    assert [call.tool_use_id for call in tools.calls] == ["toolu_1"]
    call = {"type": "tool_use", "id": "toolu_1", "name": "get_order", "input": {}}
    assert api.bodies[1] == agent_body(
        run.request,
        [opening(run.request), assistant(call), user(result("toolu_1", '{"found": true}'))],
    )


async def test_pause_turn_sends_the_paused_content_back_to_continue_the_turn(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    api.reply(
        message([text("Looking into the carrier's records.")], "pause_turn"),
        message([text("Your parcel left today.")], "end_turn"),
    )

    run = await run_claude(time_skipping_env, model_turns, FakeTools())

    assert (run.outcome.reason, run.outcome.turns_used) == ("answered", 2)
    # The next request is the same conversation with the assistant's partial turn last,
    # and nothing after it: the API continues that turn.
    assert api.bodies[1] == agent_body(
        run.request,
        [
            opening(run.request),
            assistant({"type": "text", "text": "Looking into the carrier's records."}),
        ],
    )


async def test_a_call_cut_by_max_tokens_is_never_run(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    # The reply hit max_tokens inside the refund's JSON: what arrived may be any prefix.
    api.reply(
        message(
            [
                text("I will refund the damaged item."),
                tool_use("toolu_ok", "get_order"),
                tool_use("toolu_cut", "refund", {"amount": "89."}),
            ],
            "max_tokens",
        )
    )
    tools = FakeTools()

    run = await run_claude(time_skipping_env, model_turns, tools)

    assert (run.outcome.status, run.outcome.reason) == ("failed", "truncated_reply")
    assert tools.calls == [] and run.outcome.tool_calls == []
    assert run.outcome.effects_performed == [] and run.outcome.not_performed == []
    assert len(api.requests) == 1  # a cut tool_use is never sent back unanswered either


async def test_a_paused_turn_with_a_call_gets_the_calls_result(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    # Sent back unanswered, the tool_use would make the API refuse the next request.
    api.reply(
        message([tool_use("toolu_p", "get_order")], "pause_turn"),
        message([text("Shipped.")], "end_turn"),
    )
    tools = FakeTools({"get_order": '{"found": true}'})

    run = await run_claude(time_skipping_env, model_turns, tools)

    assert run.outcome.reason == "answered"
    call = {"type": "tool_use", "id": "toolu_p", "name": "get_order", "input": {}}
    assert api.bodies[1]["messages"][1:] == [
        assistant(call),
        user(result("toolu_p", '{"found": true}')),
    ]
