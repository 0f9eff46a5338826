"""An overloaded Messages API (HTTP 529) through the real SDK: the quick form of
`python -m bench.chaos`'s model faults (issue 13, "Fault injection").

Half the calls refused: every turn is retried by Temporal and the run answers. Every
call refused: the run ends `model_error` with the reason after the retry policy's last
attempt, never waiting on. The time-skipping server skips the backoff between attempts.
"""

from __future__ import annotations

from temporalio.testing import WorkflowEnvironment

from activities.model_turn import ModelTurns
from tests.anthropic.wire import model_turn_attempts, run_claude
from tests.anthropic_server import FakeMessagesApi, error, message, text, tool_use
from tests.workflow.fakes import FakeTools
from workflows import policy


def overloaded(api: FakeMessagesApi) -> None:
    api.enqueue(529, error("overloaded_error", "Overloaded"))


async def test_a_model_refusing_every_other_call_still_answers(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    overloaded(api)
    api.reply(message([tool_use("toolu_1", "read_ticket")], "tool_use"))
    overloaded(api)
    api.reply(message([text("Your parcel left today.")], "end_turn"))

    run = await run_claude(time_skipping_env, model_turns, FakeTools())

    assert (run.outcome.status, run.outcome.reason) == ("completed", "answered")
    assert run.outcome.final_text == "Your parcel left today."
    assert await model_turn_attempts(run.handle) == [2, 2]  # each turn: refused, then served
    assert len(api.requests) == 4
    assert run.outcome.turns_used == 2


async def test_a_model_down_for_good_ends_the_run_with_model_error_and_why(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    for _ in range(policy.MODEL_TURN_MAX_ATTEMPTS):
        overloaded(api)
    # Served only if the run asked once more than its retry policy allows.
    api.reply(message([text("One attempt too many.")], "end_turn"))

    run = await run_claude(time_skipping_env, model_turns, FakeTools())

    assert (run.outcome.status, run.outcome.reason) == ("failed", "model_error")
    assert run.outcome.detail.startswith("The model call failed: the Anthropic API is overloaded")
    assert "Traceback" not in run.outcome.detail
    assert len(api.requests) == policy.MODEL_TURN_MAX_ATTEMPTS
    assert await model_turn_attempts(run.handle) == [policy.MODEL_TURN_MAX_ATTEMPTS]
    assert run.outcome.final_text is None
