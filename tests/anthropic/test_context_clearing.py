"""Context clearing on the wire: stubs keep every tool_use answered in the request sent."""

from __future__ import annotations

from temporalio.testing import WorkflowEnvironment

from activities.model_turn import ModelTurns
from tests.anthropic.wire import (
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
from workflows import policy
from workflows.context import CLEARED_STUB

ORDER = '{"found": true, "status": "shipped"}'


async def test_old_results_are_stubbed_in_bulk_under_the_same_ids(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    # Four small turns, then one whose prompt (cache reads included) passes the threshold.
    over = policy.CONTEXT_CLEAR_THRESHOLD_TOKENS
    calls = [f"toolu_{n}" for n in range(5)]
    api.reply(
        *(message([tool_use(call, "get_order")], "tool_use") for call in calls[:4]),
        message(
            [tool_use(calls[4], "get_order")],
            "tool_use",
            input_tokens=100,
            cache_read_input_tokens=over,
        ),
        message([text("Shipped.")], "end_turn"),
    )

    run = await run_claude(
        time_skipping_env,
        model_turns,
        FakeTools({"get_order": ORDER}),
        step_budget=10,
        token_budget=10_000_000,
    )

    assert run.outcome.reason == "answered"
    before, after = api.bodies[-2], api.bodies[-1]
    assert CLEARED_STUB not in str(before)  # nothing cleared below the threshold
    keep = policy.CONTEXT_KEEP_TOOL_RESULTS
    expected = [opening(run.request)]
    for index, call in enumerate(calls):
        cleared = index < len(calls) - keep
        expected += [
            assistant({"type": "tool_use", "id": call, "name": "get_order", "input": {}}),
            user(result(call, CLEARED_STUB if cleared else ORDER)),
        ]
    assert after == agent_body(run.request, expected)
    assert unanswered_tool_uses(after["messages"]) == []
    assert all(unanswered_tool_uses(body["messages"]) == [] for body in api.bodies)
