"""Fake activities registered under the real names, and a helper to run a workflow.

The fake model is the one fake the project allows: it speaks our neutral ModelReply,
keeps every request it received (`history`) and answers from a queue (`enqueue`).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from temporalio import activity
from temporalio.client import Client, WorkflowHandle
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from workflows.agent_run import AgentRun
from workflows.contracts import (
    MODEL_TURN_ACTIVITY,
    RUN_TOOL_ACTIVITY,
    ModelRef,
    ModelReply,
    ModelRequest,
    RunRequest,
    StopReason,
    TextBlock,
    ToolCallInput,
    ToolResult,
    ToolUseBlock,
    Usage,
)

HANG = "hang"


def text_reply(text: str, stop_reason: StopReason = "end_turn", tokens: int = 10) -> ModelReply:
    return ModelReply(
        content=[TextBlock(text=text)] if text else [],
        stop_reason=stop_reason,
        usage=Usage(input_tokens=tokens, output_tokens=tokens),
    )


def tool_reply(*calls: tuple[str, dict[str, Any]], text: str = "", tokens: int = 10) -> ModelReply:
    blocks: list[TextBlock | ToolUseBlock] = [TextBlock(text=text)] if text else []
    for index, (name, arguments) in enumerate(calls):
        blocks.append(
            ToolUseBlock(id=f"toolu_{uuid.uuid4().hex[:8]}_{index}", name=name, input=arguments)
        )
    return ModelReply(
        content=blocks,
        stop_reason="tool_use",
        usage=Usage(input_tokens=tokens, output_tokens=tokens),
    )


class FakeModel:
    def __init__(self) -> None:
        self.queue: list[ModelReply | str] = []
        self.history: list[ModelRequest] = []
        self.started = asyncio.Event()

    def enqueue(self, *replies: ModelReply | str) -> FakeModel:
        self.queue.extend(replies)
        return self

    @activity.defn(name=MODEL_TURN_ACTIVITY)
    async def model_turn(self, request: ModelRequest) -> ModelReply:
        self.history.append(request)
        self.started.set()
        if not self.queue:
            raise ApplicationError(
                "fake model queue is empty", type="ScriptError", non_retryable=True
            )
        reply = self.queue.pop(0)
        if reply == HANG:
            while True:  # a model that never answers; it heartbeats so cancellation reaches it
                activity.heartbeat()
                await asyncio.sleep(0.05)
        assert isinstance(reply, ModelReply)
        return reply


class FakeTools:
    """Answers tool calls from a table; a callable entry may raise to simulate a crash."""

    def __init__(self, table: dict[str, str | Callable[[ToolCallInput], ToolResult]] | None = None):
        self.table = table or {}
        self.calls: list[ToolCallInput] = []

    @activity.defn(name=RUN_TOOL_ACTIVITY)
    async def run_tool(self, call: ToolCallInput) -> ToolResult:
        self.calls.append(call)
        entry = self.table.get(call.name, '{"ok": true}')
        if callable(entry):
            return entry(call)
        return ToolResult(tool_use_id=call.tool_use_id, content=entry)


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


def worker(
    client: Client, task_queue: str, model: FakeModel, tools: FakeTools | None = None
) -> Worker:
    tools = tools or FakeTools()
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[AgentRun],
        activities=[model.model_turn, tools.run_tool],
    )


async def start(client: Client, request: RunRequest, task_queue: str) -> WorkflowHandle[Any, Any]:
    return await client.start_workflow(
        AgentRun.run,
        request,
        id=f"run-{request.tenant_id}-{request.request_id}",
        task_queue=task_queue,
    )
