"""A run is held to the worker's limits, whatever its request asks for; they come with
its first model turn, and the model-turn activity holds every call to the worker's
max_tokens whoever calls it; it asserts its own tenant search attribute; a request
asking for less keeps its own budgets."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy import Engine
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment

from activities.model_turn import ModelTurns
from activities.run_limits import WorkerLimits
from signoff.config.settings import Settings
from signoff.service.runs import STATUS_KEY, TENANT_KEY
from tests.workflow.approvals import TEST_KEYS, gate_run, pending_actions
from tests.workflow.fakes import (
    GENEROUS_LIMITS,
    HANG,
    FakeModel,
    FakeTools,
    new_task_queue,
    replay,
    run_request,
    start,
    text_reply,
    tool_reply,
    worker,
)
from workflows import policy
from workflows.agent_run import AgentRun
from workflows.contracts import (
    Message,
    ModelPrice,
    ModelRef,
    ModelReply,
    ModelRequest,
    RunOutcome,
    RunState,
    TextBlock,
    run_id_for,
)
from workflows.run_limits import RunLimitsRequest

HAIKU = ModelRef(provider="anthropic", model_id="claude-haiku-4-5")
WORKER_SETTINGS = Settings(
    step_budget=3,
    token_budget=100_000,
    cost_budget_usd=Decimal("1.50"),
    deadline_minutes=60,
    approval_ttl_hours=2,
    max_tokens=512,
)
GREEDY = {
    "model": HAIKU,
    "max_tokens": 4096,
    "thinking_budget_tokens": 2048,
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
    limits = WorkerLimits(WORKER_SETTINGS).limits_for
    async with worker(env.client, task_queue, model, FakeTools(), limits=limits):
        handle = await start(env.client, request, task_queue)
        outcome = await handle.result()
        state: RunState = await handle.query(AgentRun.state)
    started = (await handle.describe()).start_time
    await replay(handle)

    assert isinstance(outcome, RunOutcome)
    assert (outcome.reason, outcome.turns_used) == ("step_budget_exhausted", 3)
    assert (state.step_budget, state.token_budget) == (3, 100_000)
    # The first turn asks for the limits and, sent before the clamp, is held by the
    # activity; the later ones ask for nothing and are the clamped request's. The
    # thinking budget no longer fits below the worker's 512 tokens: none.
    assert [turn.limits_for is not None for turn in model.history] == [True, False, False]
    assert {(turn.max_tokens, turn.thinking_budget_tokens) for turn in model.history} == {
        (512, None)
    }
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
    limits = WorkerLimits(settings).limits_for
    async with worker(env.client, task_queue, model, FakeTools(), limits=limits):
        handle = await start(env.client, request, task_queue)
        outcome = await handle.result()

    # 2 USD a turn against the worker's 1.50 USD: the run stops after its first turn,
    # which the worker's price priced (the request's would have made it free).
    assert (outcome.status, outcome.reason) == ("failed", "cost_budget_exhausted")
    assert outcome.turns_used == 1
    assert "over the budget of 1.50 USD" in outcome.detail


async def test_a_request_may_ask_for_less(time_skipping_env: WorkflowEnvironment) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(*[tool_reply(("get_order", {})) for _ in range(4)])
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time(), step_budget=2, token_budget=5000)
    limits = WorkerLimits(WORKER_SETTINGS).limits_for
    async with worker(env.client, task_queue, model, FakeTools(), limits=limits):
        handle = await start(env.client, request, task_queue)
        outcome = await handle.result()
        state: RunState = await handle.query(AgentRun.state)

    assert (outcome.reason, outcome.turns_used) == ("step_budget_exhausted", 2)
    assert (state.step_budget, state.token_budget) == (2, 5000)


async def test_the_approval_expiry_is_held_to_the_worker_ttl(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    refund = ("refund", {"amount": "10.00", "reason": "The vase arrived broken."})
    model = FakeModel().enqueue(tool_reply(refund), text_reply("Done."))
    limits = WorkerLimits(WORKER_SETTINGS.model_copy(update={"deadline_minutes": 600}))
    async with gate_run(
        time_skipping_env,
        model,
        seeded_engine,
        limits=limits.limits_for,
        approval_ttl_seconds=30 * 24 * 3600,
    ) as handle:
        (action,) = await pending_actions(handle)
        await handle.cancel()
        await handle.result()

    assert action.expires_at - action.requested_at == timedelta(hours=2)


async def test_without_the_worker_limits_the_run_goes_no_further(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    # A model-turn activity that answers without the worker's limits (not signoff's).
    env = time_skipping_env
    model = FakeModel().enqueue(tool_reply(("get_order", {})), text_reply("never asked"))
    tools = FakeTools()
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time())
    async with worker(env.client, task_queue, model, tools, limits=None):
        handle = await start(env.client, request, task_queue)
        outcome = await handle.result()

    assert (outcome.status, outcome.reason) == ("failed", "worker_limits_unavailable")
    assert len(model.history) == 1 and tools.calls == []


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


# --- the model-turn activity, called directly as anyone on the task queue could ---


class Recorded:
    """A model adapter that keeps what it was sent and answers with `reply`."""

    def __init__(self, reply: ModelReply) -> None:
        self.reply = reply
        self.sent: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelReply:
        self.sent.append(request)
        return self.reply


def turn_request(**fields: Any) -> ModelRequest:
    opening = Message(role="user", content=[TextBlock(text="Where is my order?")])
    values: dict[str, Any] = {"model": HAIKU, "messages": [opening], "max_tokens": 4096}
    values.update(fields)
    return ModelRequest(**values)


def turns_of(adapter: Recorded, settings: Settings = WORKER_SETTINGS) -> ModelTurns:
    limits = WorkerLimits(settings, TEST_KEYS).limits_for
    return ModelTurns({HAIKU.provider: lambda: adapter}, limits=limits)


async def test_a_direct_call_asking_for_more_tokens_is_sent_with_the_worker_max() -> None:
    adapter = Recorded(text_reply("Shipped."))

    reply = await ActivityEnvironment().run(
        turns_of(adapter).model_turn, turn_request(thinking_budget_tokens=2048)
    )

    (sent,) = adapter.sent
    assert (sent.max_tokens, sent.thinking_budget_tokens) == (512, None)
    assert reply.worker_limits is None  # not asked for


async def test_a_turn_asked_for_limits_answers_with_the_worker_own() -> None:
    # The model's side (here its adapter) claims generous limits: only the worker's
    # come back, with its keys, whatever the request and the reply say.
    adapter = Recorded(text_reply("Shipped.").model_copy(update={"worker_limits": GENEROUS_LIMITS}))
    asked = RunLimitsRequest(model=HAIKU, tenant_id="demo")
    turns = turns_of(adapter)

    first = await ActivityEnvironment().run(turns.model_turn, turn_request(limits_for=asked))
    later = await ActivityEnvironment().run(turns.model_turn, turn_request())

    assert first.worker_limits == WorkerLimits(WORKER_SETTINGS, TEST_KEYS).limits_for(asked)
    assert first.worker_limits is not None and first.worker_limits.decision_keys
    assert first.worker_limits.max_tokens == 512
    assert later.worker_limits is None


def test_a_turn_asks_limits_only_for_the_model_it_calls() -> None:
    other = ModelRef(provider="anthropic", model_id="claude-opus-4-1")
    with pytest.raises(ValidationError, match="another model"):
        turn_request(limits_for=RunLimitsRequest(model=other))


async def test_the_worker_deadline_ends_a_run_that_asked_for_a_later_one(
    isolated_env: WorkflowEnvironment,
) -> None:
    # The timer was set from the request's 30 days before the first reply brought the
    # worker's deadline: the run still ends at the worker's, while a tool hangs (shorter
    # than the tool's own timeout: see tests/workflow/test_deadline.py).
    env = isolated_env
    worker_deadline = policy.TOOL_CALL_TIMEOUT / 2
    settings = WORKER_SETTINGS.model_copy(
        update={"deadline_minutes": worker_deadline / timedelta(minutes=1)}
    )
    model = FakeModel().enqueue(tool_reply(("get_order", {})), text_reply("Too late."))
    tools = FakeTools({"get_order": HANG}, env=env)
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time(), deadline=timedelta(days=30), **GREEDY)
    async with worker(
        env.client, task_queue, model, tools, limits=WorkerLimits(settings).limits_for
    ):
        handle = await start(env.client, request, task_queue)
        outcome = await handle.result()
    described = await handle.describe()

    assert (outcome.status, outcome.reason) == ("failed", "deadline_exceeded")
    assert len(model.history) == 1 and len(tools.calls) == 1
    assert described.close_time is not None
    assert described.close_time - described.start_time < worker_deadline + timedelta(minutes=1)
