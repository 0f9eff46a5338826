"""HTTP errors of a Chat Completions server under the real workflow: what Temporal retries.

The SDK runs with `max_retries=0`, so each HTTP request is one activity attempt; the
attempt number is read from the run's history. The time-skipping server skips the wait
between attempts, but its clock still moves by it: the time from scheduling the
activity to its completion, in the history, shows the delay applied.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from temporalio.testing import WorkflowEnvironment

from activities.model_turn import ModelTurns
from tests.anthropic.wire import first_model_turn_span, model_turn_attempts
from tests.openai.chat_server import FakeChatApi, assistant, completion, error
from tests.openai.wire import run_local
from tests.workflow.fakes import FakeTools

RETRY_AFTER_SECONDS = 40
# The retry policy's first backoff: what Temporal waits without a retry-after.
POLICY_INITIAL_INTERVAL = timedelta(seconds=2)


def answer() -> dict[str, object]:
    return completion(assistant("Your parcel left today."), "stop")


async def test_rate_limit_is_retried_after_the_servers_delay(
    time_skipping_env: WorkflowEnvironment, api: FakeChatApi, model_turns: ModelTurns
) -> None:
    api.enqueue(
        429,
        error("Rate limit reached for requests", "requests", "rate_limit_exceeded"),
        headers={"retry-after": str(RETRY_AFTER_SECONDS)},
    )
    api.reply(answer())

    run = await run_local(time_skipping_env, model_turns, FakeTools())

    assert (run.outcome.status, run.outcome.reason) == ("completed", "answered")
    assert await model_turn_attempts(run.handle) == [2]
    first, second = api.requests
    assert first.body == second.body  # the same request, sent again by Temporal
    # Each request is a first try for the SDK: the retry was Temporal's.
    assert first.headers["x-stainless-retry-count"] == "0"
    assert second.headers["x-stainless-retry-count"] == "0"
    span = await first_model_turn_span(run.handle)
    assert span >= timedelta(seconds=RETRY_AFTER_SECONDS)


async def test_server_trouble_without_retry_after_uses_temporals_backoff(
    time_skipping_env: WorkflowEnvironment, api: FakeChatApi, model_turns: ModelTurns
) -> None:
    api.enqueue(503, error("model is loading", "server_error"))
    api.enqueue(500, error("out of memory", "server_error"))
    api.reply(answer())

    run = await run_local(time_skipping_env, model_turns, FakeTools())

    assert run.outcome.reason == "answered"
    assert await model_turn_attempts(run.handle) == [3]
    span = await first_model_turn_span(run.handle)
    assert POLICY_INITIAL_INTERVAL <= span < timedelta(seconds=RETRY_AFTER_SECONDS)


async def test_a_refused_key_ends_the_run_at_once_naming_the_setting(
    time_skipping_env: WorkflowEnvironment, api: FakeChatApi, model_turns: ModelTurns
) -> None:
    api.enqueue(
        401, error("Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
    )

    run = await run_local(time_skipping_env, model_turns, FakeTools())

    assert (run.outcome.status, run.outcome.reason) == ("failed", "model_error")
    assert run.outcome.detail.startswith("The model call failed: authentication failed")
    assert "SIGNOFF_OPENAI_API_KEY" in run.outcome.detail
    assert "Traceback" not in run.outcome.detail
    assert len(api.requests) == 1
    assert await model_turn_attempts(run.handle) == [1]


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (400, "rejected the request (HTTP 400)"),
        (403, "permission denied"),
        (404, "ollama pull qwen3:4b"),
    ],
)
async def test_request_errors_are_not_retried(
    time_skipping_env: WorkflowEnvironment,
    api: FakeChatApi,
    model_turns: ModelTurns,
    status: int,
    words: str,
) -> None:
    api.enqueue(status, error("messages[2]: tool_call_id not found"))

    run = await run_local(time_skipping_env, model_turns, FakeTools())

    assert (run.outcome.status, run.outcome.reason) == ("failed", "model_error")
    assert words in run.outcome.detail
    assert len(api.requests) == 1
    assert await model_turn_attempts(run.handle) == [1]
