"""A transient store error in a tool is retried by Temporal, not shown to the model: the
run completes as if the store had answered the first time, and no failure is counted."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from temporalio.api.enums.v1 import EventType
from temporalio.testing import WorkflowEnvironment

from activities import tool_gateway
from activities.tool_gateway import ToolGateway
from tests.workflow.fakes import (
    FakeModel,
    new_task_queue,
    replay,
    run_request,
    start,
    text_reply,
    tool_reply,
    worker,
)
from tests.workflow.test_tool_results import results_of_turn
from workflows.contracts import RunOutcome, ToolCallInput

LOCKED = OperationalError("SELECT ...", {}, sqlite3.OperationalError("database is locked"))


async def test_a_locked_database_is_retried_and_the_run_completes(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = time_skipping_env
    calls: list[int] = []

    def locked_once(engine: Engine, call: ToolCallInput) -> str:
        calls.append(1)
        if len(calls) == 1:
            raise LOCKED
        return tool_gateway.read_ticket(engine, call)

    monkeypatch.setitem(tool_gateway.TOOL_FUNCTIONS, "read_ticket", locked_once)
    model = FakeModel().enqueue(tool_reply(("read_ticket", {})), text_reply("Answered."))
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time())
    async with worker(env.client, task_queue, model, ToolGateway(seeded_engine)):
        handle = await start(env.client, request, task_queue)
        outcome = await handle.result()
        history = await handle.fetch_history()
    await replay(handle)

    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, outcome.reason) == ("completed", "answered")
    assert len(calls) == 2
    (result,) = results_of_turn(model.history[1])
    assert not result.is_error and "T-4512" in result.content
    assert [call.ok for call in outcome.tool_calls] == [True]
    # The retry is Temporal's: the tool's activity completed on its second attempt.
    attempts = [
        event.activity_task_started_event_attributes.attempt
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
    ]
    assert 2 in attempts


async def test_an_error_that_would_repeat_is_still_a_result_for_the_model(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []

    def constraint(engine: Engine, call: ToolCallInput) -> str:
        calls.append(1)
        raise IntegrityError("INSERT ...", {}, sqlite3.IntegrityError("UNIQUE failed"))

    monkeypatch.setitem(tool_gateway.TOOL_FUNCTIONS, "read_ticket", constraint)
    model = FakeModel().enqueue(tool_reply(("read_ticket", {})), text_reply("Sorry."))
    task_queue = new_task_queue()
    request = run_request(await time_skipping_env.get_current_time())
    async with worker(time_skipping_env.client, task_queue, model, ToolGateway(seeded_engine)):
        outcome = await (await start(time_skipping_env.client, request, task_queue)).result()

    (result,) = results_of_turn(model.history[1])
    assert result.is_error and "internal error (reference " in result.content
    assert len(calls) == 1
    assert outcome.status == "completed"
