"""Every finish reason of the Chat Completions API, mapped to the loop's neutral outcome."""

from __future__ import annotations

from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment

from activities.model_turn import ModelTurns
from tests.openai.chat_server import FakeChatApi, assistant, completion, tool_call
from tests.openai.wire import run_local
from tests.workflow.fakes import FakeTools


@pytest.mark.parametrize(
    ("finish_reason", "message", "status", "reason"),
    [
        ("stop", assistant("Your parcel left today."), "completed", "answered"),
        ("length", assistant("Your parcel left"), "failed", "truncated_reply"),
        ("content_filter", assistant(None), "failed", "refusal"),
        ("stop", assistant(None, refusal="I can't help with that."), "failed", "refusal"),
        # Done, but with nothing to say (or only reasoning): not an answer.
        ("stop", assistant(""), "failed", "empty_reply"),
        ("stop", assistant("<think>Hmm.</think>"), "failed", "empty_reply"),
    ],
)
async def test_a_final_finish_reason_ends_the_run_with_its_outcome(
    time_skipping_env: WorkflowEnvironment,
    api: FakeChatApi,
    model_turns: ModelTurns,
    finish_reason: str,
    message: dict[str, Any],
    status: str,
    reason: str,
) -> None:
    api.reply(completion(message, finish_reason))

    run = await run_local(time_skipping_env, model_turns, FakeTools())

    assert (run.outcome.status, run.outcome.reason) == (status, reason)
    assert len(api.requests) == 1
    if reason == "answered":
        assert run.outcome.final_text == "Your parcel left today."
    else:
        assert run.outcome.final_text is None


async def test_a_call_cut_by_length_is_never_run(
    time_skipping_env: WorkflowEnvironment, api: FakeChatApi, model_turns: ModelTurns
) -> None:
    # The reply hit max_tokens inside the refund's arguments: any prefix may arrive.
    api.reply(
        completion(
            assistant(
                "I will refund the damaged item.",
                tool_call("call_ok", "get_order"),
                tool_call("call_cut", "refund", '{"amount": "89.'),
            ),
            "length",
        )
    )
    tools = FakeTools()

    run = await run_local(time_skipping_env, model_turns, tools)

    assert (run.outcome.status, run.outcome.reason) == ("failed", "truncated_reply")
    # Not even the complete call before it: a cut reply is not acted on.
    assert tools.calls == [] and run.outcome.tool_calls == []
    assert run.outcome.effects_performed == [] and run.outcome.not_performed == []
    assert len(api.requests) == 1


async def test_a_stop_with_tool_calls_runs_them(
    time_skipping_env: WorkflowEnvironment, api: FakeChatApi, model_turns: ModelTurns
) -> None:
    # Some servers finish a calling message with `stop`: the calls still run.
    api.reply(
        completion(assistant(None, tool_call("call_s", "get_order")), "stop"),
        completion(assistant("Shipped."), "stop"),
    )
    tools = FakeTools({"get_order": '{"found": true}'})

    run = await run_local(time_skipping_env, model_turns, tools)

    assert (run.outcome.reason, run.outcome.final_text) == ("answered", "Shipped.")
    assert [call.tool_use_id for call in tools.calls] == ["call_s"]


async def test_an_unknown_finish_reason_fails_the_run_without_retrying(
    time_skipping_env: WorkflowEnvironment, api: FakeChatApi, model_turns: ModelTurns
) -> None:
    api.reply(completion(assistant("Hello"), "eos"))

    run = await run_local(time_skipping_env, model_turns, FakeTools())

    assert (run.outcome.status, run.outcome.reason) == ("failed", "model_error")
    assert "finish reason ('eos')" in run.outcome.detail
    assert len(api.requests) == 1
