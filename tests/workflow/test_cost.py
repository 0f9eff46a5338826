"""Cost: every turn's usage priced, the run's cost in the outcome, a cost budget enforced."""

from __future__ import annotations

from decimal import Decimal

from temporalio.testing import WorkflowEnvironment

from tests.workflow.fakes import FakeModel, FakeTools, run_to_end, text_reply, tool_reply
from workflows.contracts import ModelPrice

# 3 USD per million input tokens and 15 per million output tokens.
PRICE = ModelPrice(input=Decimal("3"), output=Decimal("15"))


async def test_the_outcome_carries_the_cost_of_every_turn(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    # Two turns of 10 input and 10 output tokens: 20 × 3 + 20 × 15 = 360 per million.
    model = FakeModel().enqueue(tool_reply(("get_order", {})), text_reply("Shipped."))

    outcome = await run_to_end(time_skipping_env, model, FakeTools(), price=PRICE)

    assert outcome.status == "completed"
    assert outcome.cost_usd == Decimal("0.000360")


async def test_the_cost_budget_ends_the_run(time_skipping_env: WorkflowEnvironment) -> None:
    expensive = ModelPrice(input=Decimal("100000"), output=Decimal("100000"))
    # Each turn costs 20 tokens × 0.1 USD = 2 USD; the budget is 3 USD.
    model = FakeModel().enqueue(*[tool_reply(("get_order", {})) for _ in range(5)])

    outcome = await run_to_end(
        time_skipping_env, model, FakeTools(), price=expensive, cost_budget_usd=Decimal("3")
    )

    assert (outcome.status, outcome.reason) == ("failed", "cost_budget_exhausted")
    assert outcome.turns_used == 2
    assert outcome.cost_usd == Decimal("4")
    assert "over the budget of 3 USD" in outcome.detail


async def test_a_scripted_run_costs_nothing(time_skipping_env: WorkflowEnvironment) -> None:
    model = FakeModel().enqueue(text_reply("Hello."))

    outcome = await run_to_end(time_skipping_env, model)

    assert outcome.cost_usd == 0
