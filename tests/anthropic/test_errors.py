"""HTTP errors of the Messages API: which ones Temporal retries, and how a run ends.

The SDK runs with `max_retries=0`, so each HTTP request is one activity attempt; the
attempt number is read from the run's history. The time-skipping server skips the
wait between attempts, but the server's clock still moves by it: the time from
scheduling the activity to its completion, in the history, shows the delay applied.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from temporalio.testing import WorkflowEnvironment

from activities.model_turn import ModelTurns
from signoff.cli.render import shown_status as status_of
from signoff.service.retries import Retry, retries_in
from tests.anthropic.wire import CLAUDE, first_model_turn_span, model_turn_attempts, run_claude
from tests.anthropic_server import TEST_API_KEY, FakeMessagesApi, error, message, text
from tests.workflow.fakes import FakeTools, new_task_queue, run_request, start, worker
from workflows.agent_run import AgentRun
from workflows.contracts import MODEL_TURN_ACTIVITY

RETRY_AFTER_SECONDS = 40
# The retry policy's first backoff: what Temporal waits without a retry-after.
POLICY_INITIAL_INTERVAL = timedelta(seconds=2)


def answer() -> dict[str, object]:
    return message([text("Your parcel left today.")], "end_turn")


async def test_rate_limit_is_retried_after_the_servers_delay(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    api.enqueue(
        429,
        error("rate_limit_error", "Number of request tokens has exceeded your rate limit."),
        headers={"retry-after": str(RETRY_AFTER_SECONDS)},
    )
    api.reply(answer())

    run = await run_claude(time_skipping_env, model_turns, FakeTools())

    assert (run.outcome.status, run.outcome.reason) == ("completed", "answered")
    assert await model_turn_attempts(run.handle) == [2]
    first, second = api.requests
    assert first.body == second.body  # the same request, sent again by Temporal
    # Each request is a first try for the SDK: the retry was Temporal's.
    assert first.headers["x-stainless-retry-count"] == second.headers["x-stainless-retry-count"]
    assert first.headers["x-stainless-retry-count"] == "0"
    span = await first_model_turn_span(run.handle)
    assert span >= timedelta(seconds=RETRY_AFTER_SECONDS)


async def test_overload_without_retry_after_uses_temporals_backoff(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    api.enqueue(529, error("overloaded_error", "Overloaded"))
    api.enqueue(500, error("api_error", "Internal server error"))
    api.reply(answer())

    run = await run_claude(time_skipping_env, model_turns, FakeTools())

    assert run.outcome.reason == "answered"
    assert await model_turn_attempts(run.handle) == [3]
    span = await first_model_turn_span(run.handle)
    assert POLICY_INITIAL_INTERVAL <= span < timedelta(seconds=RETRY_AFTER_SECONDS)


async def test_a_refused_key_ends_the_run_at_once_in_plain_words(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    api.enqueue(401, error("authentication_error", "invalid x-api-key"))

    run = await run_claude(time_skipping_env, model_turns, FakeTools())

    assert (run.outcome.status, run.outcome.reason) == ("failed", "model_error")
    assert "authentication failed" in run.outcome.detail
    assert "Traceback" not in run.outcome.detail and TEST_API_KEY not in run.outcome.detail
    assert len(api.requests) == 1
    assert await model_turn_attempts(run.handle) == [1]


@pytest.mark.parametrize(
    ("status", "kind", "words"),
    [
        (400, "invalid_request_error", "rejected the request (HTTP 400)"),
        (403, "permission_error", "permission denied"),
        (404, "not_found_error", "was not found"),
    ],
)
async def test_request_errors_are_not_retried(
    time_skipping_env: WorkflowEnvironment,
    api: FakeMessagesApi,
    model_turns: ModelTurns,
    status: int,
    kind: str,
    words: str,
) -> None:
    api.enqueue(status, error(kind, "messages.1: tool_use ids must be unique"))

    run = await run_claude(time_skipping_env, model_turns, FakeTools())

    assert (run.outcome.status, run.outcome.reason) == ("failed", "model_error")
    assert words in run.outcome.detail
    assert len(api.requests) == 1
    assert await model_turn_attempts(run.handle) == [1]


async def test_a_step_in_retry_shows_the_run_as_retrying(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    # What `signoff status` reads while Temporal waits out a rate limit: nobody awaits
    # the result yet, so the server's clock stays put and the run waits in its backoff.
    api.enqueue(
        429,
        error("rate_limit_error", "Number of request tokens has exceeded your rate limit."),
        headers={"retry-after": str(RETRY_AFTER_SECONDS)},
    )
    api.reply(answer())
    env = time_skipping_env
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time(), model=CLAUDE)
    async with worker(env.client, task_queue, model_turns, FakeTools()):
        handle = await start(env.client, request, task_queue)
        retries: list[Retry] = []
        for _ in range(200):
            retries = retries_in((await handle.describe()).raw_description)
            if retries:
                break
            await asyncio.sleep(0.05)
        state = await handle.query(AgentRun.state)
        outcome = await handle.result()  # now the clock skips the wait

    (retry,) = retries
    assert (retry.activity, retry.attempt) == (MODEL_TURN_ACTIVITY, 2)
    assert retry.last_failure.startswith("the Anthropic API rate limit was reached")
    # The time of the next attempt is said when the server gives it (the test server
    # does not).
    assert retry.line().startswith(
        "model_turn, attempt 2; last failure: the Anthropic API rate limit was reached"
    )
    assert status_of(False, None, state, retries) == "retrying"
    assert status_of(False, None, state, []) == "running"
    assert outcome.reason == "answered"
