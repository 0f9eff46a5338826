"""After an approval the run checks its budgets again: a spent run does not act."""

from __future__ import annotations

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from tests.workflow.approvals import decide, decision, gate_run, pending_actions, refunded
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply


async def test_an_approval_does_not_let_a_run_over_its_token_budget_act(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    # The turn that proposes the refund uses 20 tokens; the budget is 15.
    proposal = tool_reply(("refund", {"amount": "89.90", "reason": "Broken vase."}))
    model = FakeModel().enqueue(proposal, text_reply("Never asked."))
    async with gate_run(time_skipping_env, model, seeded_engine, token_budget=15) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert refunded(seeded_engine, "C-1042") == []
    assert outcome.effects_performed == []
    (not_done,) = outcome.not_performed
    assert "over its budget of 15" in not_done
    # The budget also ends the loop: the model is not asked for another turn.
    assert (outcome.status, outcome.reason) == ("failed", "token_budget_exhausted")
    assert len(model.history) == 1
