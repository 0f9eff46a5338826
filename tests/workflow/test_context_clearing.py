"""A big prompt clears old tool results in bulk; every tool_use stays answered."""

from __future__ import annotations

from temporalio.testing import WorkflowEnvironment

from tests.workflow.fakes import FakeModel, FakeTools, run_to_end, text_reply, tool_reply
from workflows import policy
from workflows.context import CLEARED_STUB
from workflows.contracts import ModelReply, ToolResultBlock, ToolUseBlock, Usage


def big(reply: ModelReply) -> ModelReply:
    """The same reply, reporting a prompt past the clearing threshold."""
    tokens = policy.CONTEXT_CLEAR_THRESHOLD_TOKENS + 1
    return reply.model_copy(update={"usage": Usage(input_tokens=tokens, output_tokens=10)})


async def test_old_results_are_stubbed_and_every_call_still_answered(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    small_turns = [tool_reply(("get_order", {})) for _ in range(4)]
    model = FakeModel().enqueue(
        *small_turns, big(tool_reply(("read_ticket", {}))), text_reply("Done.")
    )

    outcome = await run_to_end(
        time_skipping_env, model, FakeTools(), token_budget=10_000_000, step_budget=10
    )

    assert outcome.status == "completed"
    last = model.history[-1].messages
    uses = [b.id for m in last for b in m.content if isinstance(b, ToolUseBlock)]
    answers = [b for m in last for b in m.content if isinstance(b, ToolResultBlock)]
    assert [a.tool_use_id for a in answers] == uses  # one result per call, same ids
    kept = policy.CONTEXT_KEEP_TOOL_RESULTS
    assert [a.content == CLEARED_STUB for a in answers] == [True] * (len(uses) - kept) + [
        False
    ] * kept
    # Before the big turn nothing was cleared: clearing is rare and in bulk.
    before = model.history[-2].messages
    assert not any(
        isinstance(b, ToolResultBlock) and b.content == CLEARED_STUB
        for m in before
        for b in m.content
    )
