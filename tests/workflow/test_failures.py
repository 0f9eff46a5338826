"""A run that keeps failing ends with a named outcome instead of looping or crashing."""

from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from tests.workflow.fakes import FakeModel, FakeTools, run_to_end, text_reply, tool_reply
from workflows import policy
from workflows.contracts import ToolCallInput, ToolResult


async def test_three_turns_of_only_errors_end_the_run(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    model = FakeModel().enqueue(
        tool_reply(("lookup_customer", {})),
        tool_reply(("get_order", {"order_id": "C-3107"})),
        tool_reply(("read_ticket", {"ticket_id": "T-1"})),
        text_reply("Never asked."),
    )

    outcome = await run_to_end(time_skipping_env, model)

    assert policy.MAX_CONSECUTIVE_ERROR_TURNS == 3
    assert (outcome.status, outcome.reason) == ("failed", "repeated_tool_errors")
    assert len(model.history) == 3
    assert [record.ok for record in outcome.tool_calls] == [False, False, False]


async def test_a_turn_with_one_good_call_resets_the_error_count(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    model = FakeModel().enqueue(
        tool_reply(("tool_a", {})),
        tool_reply(("tool_b", {})),
        tool_reply(("tool_c", {}), ("get_order", {})),
        tool_reply(("tool_d", {})),
        tool_reply(("tool_e", {})),
        text_reply("Your order has shipped."),
    )

    outcome = await run_to_end(time_skipping_env, model)

    assert (outcome.status, outcome.reason) == ("completed", "answered")
    assert outcome.turns_used == 6


async def test_repeating_a_failed_call_ends_the_run(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    model = FakeModel().enqueue(
        tool_reply(("get_order", {"order_id": "C-3107"})),
        tool_reply(("get_order", {"order_id": "C-3107"})),
        text_reply("Never asked."),
    )

    outcome = await run_to_end(time_skipping_env, model)

    assert (outcome.status, outcome.reason) == ("failed", "repeated_failing_call")
    assert "get_order" in outcome.detail
    assert len(model.history) == 2


async def test_repeating_a_call_whose_tool_failed_ends_the_run(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    def crash(call: ToolCallInput) -> ToolResult:
        raise ApplicationError("store is down", non_retryable=True)

    model = FakeModel().enqueue(
        tool_reply(("get_order", {})), tool_reply(("get_order", {})), text_reply("Never.")
    )
    tools = FakeTools({"get_order": crash})

    outcome = await run_to_end(time_skipping_env, model, tools)

    assert (outcome.status, outcome.reason) == ("failed", "repeated_failing_call")
    assert len(tools.calls) == 2


async def test_a_fatal_model_error_is_not_retried(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    # As the adapters raise it (tests/unit/test_anthropic_adapter.py): the error says
    # it is fatal, and the retry policy names no type (workflows/policy.py).
    denied = ApplicationError(
        "authentication failed: invalid x-api-key",
        type="ModelAuthenticationFailed",
        non_retryable=True,
    )
    model = FakeModel().enqueue(denied, text_reply("Never asked."))

    outcome = await run_to_end(time_skipping_env, model)

    assert (outcome.status, outcome.reason) == ("failed", "model_error")
    assert "authentication failed" in outcome.detail
    assert len(model.history) == 1


# Slow: the retry policy's backoff between six attempts (2 + 4 + ... + 32 s) passes in
# real time; the time-skipping server does not skip an activity's retry interval.
@pytest.mark.slow
async def test_model_failing_every_attempt_ends_with_model_error(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    attempts = policy.MODEL_TURN_MAX_ATTEMPTS
    model = FakeModel().enqueue(
        *[ApplicationError("overloaded", type="ModelOverloaded") for _ in range(attempts)],
        text_reply("Never asked."),
    )

    outcome = await run_to_end(time_skipping_env, model)

    assert (outcome.status, outcome.reason) == ("failed", "model_error")
    assert len(model.history) == attempts
    assert outcome.turns_used == 1


async def test_transient_model_failure_is_retried_within_the_turn(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    model = FakeModel().enqueue(
        ApplicationError("overloaded", type="ModelOverloaded"), text_reply("Shipped.")
    )

    outcome = await run_to_end(time_skipping_env, model)

    assert (outcome.status, outcome.final_text) == ("completed", "Shipped.")
    assert outcome.turns_used == 1
    assert len(model.history) == 2
