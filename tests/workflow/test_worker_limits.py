"""A run is held to the worker's limits, whatever its request asks for; it asserts its
own tenant search attribute; a request asking for less keeps its own budgets."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from sqlalchemy import Engine
from temporalio import activity
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from activities.run_limits import RunLimitsActivity
from signoff.config.settings import Settings
from signoff.service.runs import STATUS_KEY, TENANT_KEY
from tests.workflow.approvals import gate_run, pending_actions
from tests.workflow.fakes import (
    FakeModel,
    FakeTools,
    new_task_queue,
    replay,
    run_request,
    text_reply,
    tool_reply,
    worker,
)
from workflows.agent_run import AgentRun
from workflows.contracts import ModelPrice, ModelRef, RunOutcome, RunState, run_id_for
from workflows.run_limits import RUN_LIMITS_ACTIVITY, RunLimits, RunLimitsRequest

HAIKU = ModelRef(provider="anthropic", model_id="claude-haiku-4-5")
WORKER_SETTINGS = Settings(
    step_budget=3,
    token_budget=100_000,
    cost_budget_usd=Decimal("1.50"),
    deadline_minutes=60,
    approval_ttl_hours=2,
)
GREEDY = {
    "model": HAIKU,
    "step_budget": 50,
    "token_budget": 10**9,
    "cost_budget_usd": None,
    "approval_ttl_seconds": 30 * 24 * 3600,
    "price": ModelPrice(),  # a client claiming the model is free
}


async def test_a_greedy_request_is_held_to_the_worker_settings(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(*[tool_reply(("get_order", {})) for _ in range(6)])
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time(), deadline=timedelta(days=30), **GREEDY)
    limits = RunLimitsActivity(WORKER_SETTINGS).run_limits
    async with worker(env.client, task_queue, model, FakeTools(), run_limits=limits):
        handle = await env.client.start_workflow(
            AgentRun.run,
            request,
            id=run_id_for(request.tenant_id, request.request_id),
            task_queue=task_queue,
        )
        outcome = await handle.result()
        state: RunState = await handle.query(AgentRun.state)
    started = (await handle.describe()).start_time
    await replay(handle)

    assert isinstance(outcome, RunOutcome)
    assert (outcome.reason, outcome.turns_used) == ("step_budget_exhausted", 3)
    assert (state.step_budget, state.token_budget) == (3, 100_000)
    assert state.deadline < request.deadline
    # workflow.now() comes through a float: on the time-skipping server, where no time
    # passes before the clamp, it can read a microsecond before the start time.
    rounding = timedelta(milliseconds=1)
    assert timedelta(minutes=60) - rounding <= state.deadline - started < timedelta(minutes=61)
    # The worker's price for haiku (1 and 5 USD per million): 3 turns × (10×1 + 10×5).
    assert outcome.cost_usd == Decimal("0.000180")


async def test_the_worker_cost_budget_applies_to_a_request_without_one(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    expensive = ModelPrice(input=Decimal("100000"), output=Decimal("100000"))
    settings = WORKER_SETTINGS.model_copy(
        update={"step_budget": 10, "model_prices": {HAIKU.model_id: expensive}}
    )
    model = FakeModel().enqueue(*[tool_reply(("get_order", {})) for _ in range(6)])
    task_queue = new_task_queue()
    env = time_skipping_env
    request = run_request(await env.get_current_time(), **GREEDY)
    limits = RunLimitsActivity(settings).run_limits
    async with worker(env.client, task_queue, model, FakeTools(), run_limits=limits):
        handle = await env.client.start_workflow(
            AgentRun.run,
            request,
            id=run_id_for(request.tenant_id, request.request_id),
            task_queue=task_queue,
        )
        outcome = await handle.result()

    # 2 USD a turn against the worker's 1.50 USD: the run stops after its first turn.
    assert (outcome.status, outcome.reason) == ("failed", "cost_budget_exhausted")
    assert outcome.turns_used == 1
    assert "over the budget of 1.50 USD" in outcome.detail


async def test_a_request_may_ask_for_less(time_skipping_env: WorkflowEnvironment) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(*[tool_reply(("get_order", {})) for _ in range(4)])
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time(), step_budget=2, token_budget=5000)
    limits = RunLimitsActivity(WORKER_SETTINGS).run_limits
    async with worker(env.client, task_queue, model, FakeTools(), run_limits=limits):
        handle = await env.client.start_workflow(
            AgentRun.run,
            request,
            id=run_id_for(request.tenant_id, request.request_id),
            task_queue=task_queue,
        )
        outcome = await handle.result()
        state: RunState = await handle.query(AgentRun.state)

    assert (outcome.reason, outcome.turns_used) == ("step_budget_exhausted", 2)
    assert (state.step_budget, state.token_budget) == (2, 5000)


async def test_the_approval_expiry_is_held_to_the_worker_ttl(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    refund = ("refund", {"amount": "10.00", "reason": "The vase arrived broken."})
    model = FakeModel().enqueue(tool_reply(refund), text_reply("Done."))
    limits = RunLimitsActivity(WORKER_SETTINGS.model_copy(update={"deadline_minutes": 600}))
    async with gate_run(
        time_skipping_env,
        model,
        seeded_engine,
        run_limits=limits.run_limits,
        approval_ttl_seconds=30 * 24 * 3600,
    ) as handle:
        (action,) = await pending_actions(handle)
        await handle.cancel()
        await handle.result()

    assert action.expires_at - action.requested_at == timedelta(hours=2)


@activity.defn(name=RUN_LIMITS_ACTIVITY)
async def broken_limits(request: RunLimitsRequest) -> RunLimits:
    raise ApplicationError("settings unreadable", non_retryable=True)


async def test_without_the_worker_limits_the_run_does_not_start(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(text_reply("never asked"))
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time())
    async with worker(env.client, task_queue, model, run_limits=broken_limits):
        handle = await env.client.start_workflow(
            AgentRun.run,
            request,
            id=run_id_for(request.tenant_id, request.request_id),
            task_queue=task_queue,
        )
        outcome = await handle.result()

    assert (outcome.status, outcome.reason) == ("failed", "worker_limits_unavailable")
    assert model.history == []


async def test_the_run_sets_its_own_tenant_attribute(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    # A starter that labels a demo run as globex's: the run corrects it from its request.
    env = time_skipping_env
    model = FakeModel().enqueue(text_reply("Shipped."))
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time())
    async with worker(env.client, task_queue, model):
        handle = await env.client.start_workflow(
            AgentRun.run,
            request,
            id=run_id_for(request.tenant_id, request.request_id),
            task_queue=task_queue,
            search_attributes=TypedSearchAttributes(
                [
                    SearchAttributePair(STATUS_KEY, "completed"),
                    SearchAttributePair(TENANT_KEY, "globex"),
                ]
            ),
        )
        await handle.result()
    attributes = (await handle.describe()).typed_search_attributes

    assert attributes.get(TENANT_KEY) == "demo"
    assert attributes.get(STATUS_KEY) == "completed"
