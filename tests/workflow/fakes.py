"""Fake activities registered under the real names, and helpers to run a workflow.

The fake model is the one fake the project allows: it speaks our neutral ModelReply,
keeps every request it received (`history`) and answers from a queue (`enqueue`).

Time-skipping note. The test server does not skip time while an activity runs (a
running activity holds a time-skipping lock). A fake that must stay busy while the
run's clock moves on (a hung model, a hung tool) therefore waits through the test
environment's `sleep`, which releases that lock for the virtual time it sleeps; given
no environment, it waits in real time, which is enough for a test that cancels it.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, Protocol

from temporalio import activity
from temporalio.client import Client, WorkflowHandle
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer, Worker

from activities.run_limits import LimitsSource, limited_turn
from signoff.config.data_converter import data_converter
from signoff.service.runs import STATUS_KEY, TENANT_KEY
from workflows import policy
from workflows.agent_run import AgentRun
from workflows.contracts import (
    MODEL_TURN_ACTIVITY,
    RUN_TOOL_ACTIVITY,
    ModelRef,
    ModelReply,
    ModelRequest,
    RunOutcome,
    RunRequest,
    StopReason,
    TextBlock,
    ToolCallInput,
    ToolResult,
    ToolUseBlock,
    Usage,
    run_id_for,
)
from workflows.run_limits import RunLimits, RunLimitsRequest
from workflows.sandbox import workflow_runner

# A model or tool that never answers. It stays at the head of the queue, so every
# retry of the activity hangs too.
HANG = "hang"
# A hung fake heartbeats this often (virtual time), well inside the model turn's
# heartbeat timeout, so that only the run's own deadline can end the wait.
HANG_HEARTBEAT_EVERY = policy.MODEL_TURN_HEARTBEAT / 6
REAL_TIME_POLL_SECONDS = 0.02


def text_reply(text: str, stop_reason: StopReason = "end_turn", tokens: int = 10) -> ModelReply:
    return ModelReply(
        content=[TextBlock(text=text)] if text else [],
        stop_reason=stop_reason,
        usage=Usage(input_tokens=tokens, output_tokens=tokens),
    )


def tool_reply(
    *calls: tuple[str, dict[str, Any]],
    text: str = "",
    tokens: int = 10,
    stop_reason: StopReason = "tool_use",
) -> ModelReply:
    blocks: list[TextBlock | ToolUseBlock] = [TextBlock(text=text)] if text else []
    for index, (name, arguments) in enumerate(calls):
        blocks.append(
            ToolUseBlock(id=f"toolu_{uuid.uuid4().hex[:8]}_{index}", name=name, input=arguments)
        )
    return ModelReply(
        content=blocks,
        stop_reason=stop_reason,
        usage=Usage(input_tokens=tokens, output_tokens=tokens),
    )


def tool_uses(reply: ModelReply) -> list[ToolUseBlock]:
    return [block for block in reply.content if isinstance(block, ToolUseBlock)]


class Gate:
    """A queue entry that holds the model call until the test opens the gate.

    The call then answers with the next entry of the queue. Unlike HANG, the activity
    ends, so the run can go on (and the test server's time-skipping lock is released).
    """

    def __init__(self) -> None:
        self.reached = asyncio.Event()
        self._opened = asyncio.Event()

    def open(self) -> None:
        self._opened.set()

    async def wait(self) -> None:
        self.reached.set()
        await self._opened.wait()


async def hang(env: WorkflowEnvironment | None) -> None:
    """Never return; heartbeat, so that a cancellation reaches this activity."""
    while True:
        activity.heartbeat()
        if env is None:
            await asyncio.sleep(REAL_TIME_POLL_SECONDS)
        else:
            await env.sleep(HANG_HEARTBEAT_EVERY)


ModelEntry = ModelReply | Gate | Exception | str


class FakeModel:
    """Answers from its queue: a reply, HANG, a Gate, or an exception the call raises."""

    def __init__(self, env: WorkflowEnvironment | None = None) -> None:
        self.queue: list[ModelEntry] = []
        self.history: list[ModelRequest] = []
        self.started = asyncio.Event()
        self._env = env

    def enqueue(self, *replies: ModelEntry) -> FakeModel:
        self.queue.extend(replies)
        return self

    @activity.defn(name=MODEL_TURN_ACTIVITY)
    async def model_turn(self, request: ModelRequest) -> ModelReply:
        self.history.append(request)
        self.started.set()
        if self.queue and self.queue[0] == HANG:
            await hang(self._env)
        if not self.queue:
            raise ApplicationError(
                "fake model queue is empty", type="ScriptError", non_retryable=True
            )
        reply = self.queue.pop(0)
        if isinstance(reply, Gate):
            await reply.wait()
            reply = self.queue.pop(0)
        if isinstance(reply, Exception):
            raise reply
        assert isinstance(reply, ModelReply)
        return reply


ToolEntry = str | Callable[[ToolCallInput], ToolResult]


class FakeTools:
    """Answers tool calls from a table; a callable entry may raise to simulate a crash.

    An entry equal to HANG never answers (see the module note on time).
    """

    def __init__(
        self, table: dict[str, ToolEntry] | None = None, env: WorkflowEnvironment | None = None
    ) -> None:
        self.table = table or {}
        self.calls: list[ToolCallInput] = []
        self.started = asyncio.Event()
        self._env = env

    @activity.defn(name=RUN_TOOL_ACTIVITY)
    async def run_tool(self, call: ToolCallInput) -> ToolResult:
        self.calls.append(call)
        self.started.set()
        entry = self.table.get(call.name, '{"ok": true}')
        if entry == HANG:
            await hang(self._env)
        if callable(entry):
            return entry(call)
        return ToolResult(tool_use_id=call.tool_use_id, content=entry)


# Limits no test request reaches: a test's run keeps the budgets and price it asks for.
# Tests of the clamp itself answer with the worker's (activities/run_limits.py).
GENEROUS_LIMITS = RunLimits(
    step_budget=1000,
    token_budget=10**12,
    max_tokens=64_000,
    deadline_seconds=10 * 365 * 24 * 3600,
    approval_ttl_seconds=10 * 365 * 24 * 3600,
)


def generous_limits(request: RunLimitsRequest) -> RunLimits:
    return GENEROUS_LIMITS


class ModelActivities(Protocol):
    async def model_turn(self, request: ModelRequest) -> ModelReply: ...


def limited(model: ModelActivities, limits: LimitsSource = generous_limits) -> Callable[..., Any]:
    """`model`'s turns as the worker's model-turn activity answers them: held to the
    `limits`' max_tokens, and the first with the limits (the code `ModelTurns` runs)."""

    @activity.defn(name=MODEL_TURN_ACTIVITY)
    async def model_turn(request: ModelRequest) -> ModelReply:
        return await limited_turn(request, limits, model.model_turn)

    return model_turn


class ToolActivities(Protocol):
    async def run_tool(self, call: ToolCallInput) -> ToolResult: ...


def run_request(
    env_now: Any,
    *,
    request_id: str | None = None,
    deadline: timedelta = timedelta(minutes=30),
    **overrides: Any,
) -> RunRequest:
    values: dict[str, Any] = {
        "tenant_id": "demo",
        "actor_id": "ops-1",
        "request_id": request_id or uuid.uuid4().hex,
        "trace_id": uuid.uuid4().hex,
        "goal": "Answer the customer's support ticket.",
        "ticket_id": "T-4512",
        "policy_version": "test",
        "model": ModelRef(provider="scripted", model_id="fake"),
        "deadline": env_now + deadline,
    }
    values.update(overrides)
    return RunRequest(**values)


def new_task_queue() -> str:
    return f"test-{uuid.uuid4()}"


def worker(
    client: Client,
    task_queue: str,
    model: ModelActivities,
    tools: ToolActivities | None = None,
    extra_activities: Sequence[Callable[..., Any]] = (),
    limits: LimitsSource | None = generous_limits,
    workflows: Sequence[type] = (AgentRun,),
    activities: Sequence[Callable[..., Any]] | None = None,
) -> Worker:
    """A worker of the fake `model` and `tools`, unless `activities` is given: the whole
    list then (the worker's own, signoff/wiring/worker_activities.py). Its model turns
    answer with `limits` (None: with none, as `model` answers)."""
    tools = tools or FakeTools()
    model_turn = model.model_turn if limits is None else limited(model, limits)
    return Worker(
        client,
        task_queue=task_queue,
        workflows=list(workflows),
        activities=list(activities)
        if activities is not None
        else [model_turn, tools.run_tool, *extra_activities],
        workflow_runner=workflow_runner(),  # the sandbox signoff's worker runs them in
        # The SDK holds heartbeats back for most of the heartbeat timeout, in real
        # time; under time skipping that is long enough for the timeout to fire.
        max_heartbeat_throttle_interval=timedelta(milliseconds=1),
    )


async def start(client: Client, request: RunRequest, task_queue: str) -> WorkflowHandle[Any, Any]:
    """Starts the run as `signoff run` does, with its status and tenant search attributes."""
    return await client.start_workflow(
        AgentRun.run,
        request,
        id=run_id_for(request.tenant_id, request.request_id),
        task_queue=task_queue,
        search_attributes=TypedSearchAttributes(
            [
                SearchAttributePair(STATUS_KEY, "running"),
                SearchAttributePair(TENANT_KEY, request.tenant_id),
            ]
        ),
    )


async def replay(handle: WorkflowHandle[Any, Any]) -> None:
    """Replay the run's history against today's workflow code: it must not diverge."""
    history = await handle.fetch_history()
    replayer = Replayer(workflows=[AgentRun], data_converter=data_converter)
    await replayer.replay_workflow(history)


async def run_to_end(
    env: WorkflowEnvironment,
    model: ModelActivities,
    tools: ToolActivities | None = None,
    /,
    **request_overrides: Any,
) -> RunOutcome:
    """Run one request on a fresh task queue, replay its history, return the outcome."""
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time(), **request_overrides)
    async with worker(env.client, task_queue, model, tools):
        handle = await start(env.client, request, task_queue)
        outcome = await handle.result()
    assert isinstance(outcome, RunOutcome)
    await replay(handle)
    return outcome
