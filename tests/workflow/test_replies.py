"""A reply is an answer only with text and a finished turn; the other shapes end the run.

The loop reads content and stop reason together: a cut reply is never run, an empty
one is never an answer, and a paused turn is continued.
"""

from __future__ import annotations

import pytest
from temporalio.testing import WorkflowEnvironment

from tests.workflow.fakes import FakeModel, FakeTools, run_to_end, text_reply, tool_reply
from workflows.contracts import Message, ModelReply, OutcomeReason, StopReason, TextBlock


async def test_truncated_reply_fails_and_runs_no_tool(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    cut = tool_reply(("get_order", {}), text="Your order is", stop_reason="max_tokens")
    model = FakeModel().enqueue(cut, text_reply("Never asked."))
    tools = FakeTools()

    outcome = await run_to_end(time_skipping_env, model, tools)

    assert (outcome.status, outcome.reason) == ("failed", "truncated_reply")
    assert outcome.final_text is None
    assert tools.calls == []
    assert outcome.tool_calls == []
    assert len(model.history) == 1
    assert outcome.usage.total == 20  # a failed turn still costs its tokens


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (ModelReply(content=[], stop_reason="end_turn"), "empty_reply"),
        (text_reply("   "), "empty_reply"),
        (text_reply("Let me think", stop_reason="max_tokens"), "truncated_reply"),
        (text_reply("I can't help with that.", stop_reason="refusal"), "refusal"),
        (text_reply("", stop_reason="model_context_window_exceeded"), "context_window_exceeded"),
    ],
    ids=["no-content", "blank-text", "text-cut", "refusal", "context-window"],
)
async def test_reply_that_is_no_answer_fails(
    time_skipping_env: WorkflowEnvironment, reply: ModelReply, reason: OutcomeReason
) -> None:
    model = FakeModel().enqueue(reply, text_reply("Never asked."))

    outcome = await run_to_end(time_skipping_env, model)

    assert (outcome.status, outcome.reason) == ("failed", reason)
    assert outcome.final_text is None
    assert outcome.detail  # says what happened, for the CLI and the UI
    assert len(model.history) == 1


@pytest.mark.parametrize("stop_reason", ["end_turn", "stop_sequence"])
async def test_text_with_a_finished_turn_is_an_answer(
    time_skipping_env: WorkflowEnvironment, stop_reason: StopReason
) -> None:
    model = FakeModel().enqueue(text_reply("Here you go.", stop_reason=stop_reason))

    outcome = await run_to_end(time_skipping_env, model)

    assert (outcome.status, outcome.reason, outcome.final_text) == (
        "completed",
        "answered",
        "Here you go.",
    )


async def test_paused_turn_is_continued_then_answers(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    paused = text_reply("Searching the order records", stop_reason="pause_turn")
    model = FakeModel().enqueue(paused, text_reply("Your order has shipped."))

    outcome = await run_to_end(time_skipping_env, model)

    assert (outcome.status, outcome.reason) == ("completed", "answered")
    assert outcome.final_text == "Your order has shipped."
    assert outcome.turns_used == 2
    first, second = model.history
    assert second.messages == first.messages + [
        Message(role="assistant", content=[TextBlock(text="Searching the order records")])
    ]
