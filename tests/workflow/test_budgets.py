"""The step and token budgets end a run that keeps calling tools, with a named outcome."""

from __future__ import annotations

from temporalio.testing import WorkflowEnvironment

from tests.workflow.fakes import FakeModel, FakeTools, run_to_end, text_reply, tool_reply


def busy_model(turns: int, tokens: int = 10) -> FakeModel:
    """A model that calls a tool every turn and would answer only after `turns` turns."""
    calls = [tool_reply(("get_order", {}), tokens=tokens) for _ in range(turns)]
    return FakeModel().enqueue(*calls, text_reply("Too late.", tokens=tokens))


async def test_step_budget_ends_the_loop(time_skipping_env: WorkflowEnvironment) -> None:
    model = busy_model(turns=5)
    tools = FakeTools()

    outcome = await run_to_end(time_skipping_env, model, tools, step_budget=3)

    assert (outcome.status, outcome.reason) == ("failed", "step_budget_exhausted")
    assert len(model.history) == 3
    assert outcome.turns_used == 3
    assert len(tools.calls) == 3
    assert outcome.final_text is None
    assert "3 model turns" in outcome.detail


async def test_answer_on_the_last_allowed_turn_completes(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    model = busy_model(turns=2)

    outcome = await run_to_end(time_skipping_env, model, step_budget=3)

    assert (outcome.status, outcome.reason) == ("completed", "answered")
    assert outcome.turns_used == 3


async def test_token_budget_ends_the_loop(time_skipping_env: WorkflowEnvironment) -> None:
    # 20 tokens a turn: 20, 40, then 60 >= 50 stops the run before a fourth turn.
    model = busy_model(turns=5, tokens=10)

    outcome = await run_to_end(time_skipping_env, model, token_budget=50)

    assert (outcome.status, outcome.reason) == ("failed", "token_budget_exhausted")
    assert len(model.history) == 3
    assert outcome.usage.total == 60
    assert outcome.detail == "Used 60 tokens, over the budget of 50."
