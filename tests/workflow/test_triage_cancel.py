"""A cancelled triage ends cancelled, not `failed`: the model call it was waiting on is
cancelled with it, and nothing after it runs (no agent, no answer).

The cancelled activity is still running when the triage ends: its own test server
(see tests/workflow/conftest.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import Engine
from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError
from temporalio.exceptions import CancelledError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from signoff.config.data_converter import data_converter
from tests.workflow.fakes import HANG, FakeModel, new_task_queue
from tests.workflow.test_triage import triage_request, triage_worker
from workflows.agent_run import AgentRun
from workflows.triage import TriageTicket

STARTED_WITHIN_SECONDS = 10


async def test_a_cancelled_triage_is_cancelled_not_failed(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    env = isolated_env
    model = FakeModel(env).enqueue(HANG)  # the classification never comes
    request = triage_request("T-4512", seeded_engine)
    queue = new_task_queue()
    async with triage_worker(env.client, queue, seeded_engine, model):
        handle = await env.client.start_workflow(
            TriageTicket.run, request, id=f"triage-{request.request_id}", task_queue=queue
        )
        await asyncio.wait_for(model.started.wait(), STARTED_WITHIN_SECONDS)
        await handle.cancel()
        with pytest.raises(WorkflowFailureError) as ended:
            await handle.result()
        description = await handle.describe()
        history = await handle.fetch_history()

    assert isinstance(ended.value.cause, CancelledError)
    assert description.status == WorkflowExecutionStatus.CANCELED
    assert len(model.history) == 1
    replayer = Replayer(workflows=[TriageTicket, AgentRun], data_converter=data_converter)
    await replayer.replay_workflow(history)
