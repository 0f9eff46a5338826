"""A run's history stays bounded: the worker caps the step budget (MAX_STEP_BUDGET), and
a run that uses every step with heavy turns stays well under Temporal's 10 MB.

Heavy turn: a 4 KB reply (about the default max_tokens) that calls both read tools, on
a ticket longer than the tool-result cut, and small reported usage, so that context
clearing never helps. The model never answers: the run ends on its step budget.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.run_limits import WorkerLimits
from activities.store import add_ticket
from activities.store.tickets import MAX_TICKET_TEXT_CHARS
from activities.tool_gateway import ToolGateway
from signoff.config.settings import Settings
from tests.workflow.fakes import FakeModel, new_task_queue, run_request, start, tool_reply, worker
from workflows.contracts import RunOutcome
from workflows.policy import MAX_STEP_BUDGET

REPLY_CHARS = 4096
TEMPORAL_HISTORY_WARNING_BYTES = 10 * 1024 * 1024
# Half of it: room for turns heavier than these (more calls, longer replies).
BOUND_BYTES = TEMPORAL_HISTORY_WARNING_BYTES // 2


def test_the_step_budget_setting_is_capped(tmp_path: Path) -> None:
    Settings(home=tmp_path, step_budget=MAX_STEP_BUDGET)
    with pytest.raises(ValidationError, match="step_budget"):
        Settings(home=tmp_path, step_budget=MAX_STEP_BUDGET + 1)


async def test_a_run_at_the_cap_keeps_its_history_under_the_bound(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    env = time_skipping_env
    ticket = add_ticket(seeded_engine, "demo", "4512", "x" * MAX_TICKET_TEXT_CHARS)
    model = FakeModel()
    for _ in range(MAX_STEP_BUDGET + 5):
        model.enqueue(tool_reply(("read_ticket", {}), ("get_order", {}), text="y" * REPLY_CHARS))
    limits = WorkerLimits(Settings(home=tmp_path, step_budget=MAX_STEP_BUDGET))
    # The request asks for more than the cap (its contract allows 100): the worker clamps.
    request = run_request(
        await env.get_current_time(), ticket_id=ticket, step_budget=100, token_budget=10**9
    )
    task_queue = new_task_queue()
    async with worker(
        env.client, task_queue, model, ToolGateway(seeded_engine), limits=limits.limits_for
    ):
        handle = await start(env.client, request, task_queue)
        outcome = await handle.result()
        history = await handle.fetch_history()

    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, outcome.reason) == ("failed", "step_budget_exhausted")
    assert outcome.turns_used == MAX_STEP_BUDGET == len(model.history)
    assert len(model.history[-1].messages) == 2 * MAX_STEP_BUDGET - 1  # nothing was cleared
    size = sum(event.ByteSize() for event in history.events)
    assert size < BOUND_BYTES, f"{size} bytes of history at {MAX_STEP_BUDGET} steps"
