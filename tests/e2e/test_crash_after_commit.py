"""A worker process killed after the refund committed, before its activity completed.

The refund activity's attempt is lost with the process; Temporal retries it when its
start-to-close timeout runs out, on a new worker. The retry finds its own ledger row by
the idempotency key and answers with it: exactly one refund, listed once.

Real processes and a real server: the Temporal dev server (the test server's clock does
not move while an activity is in flight, so the timeout would take as long anyway), a
dying worker started from `crash_worker.py`, a normal worker in this process, and one
SQLite file shared by both.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from temporalio.api.history.v1 import History
from temporalio.testing import WorkflowEnvironment

from activities.store import list_refunds, make_engine, seed_demo
from signoff.config.settings import Settings
from signoff.wiring.worker import build_worker
from tests.conftest import dev_server as started_dev_server
from tests.workflow.approvals import (
    APPROVAL_RUN_DEADLINE,
    decide,
    decision,
    install_test_keys,
    pending_actions,
)
from tests.workflow.fakes import new_task_queue, replay, run_request, start
from workflows.actions import EXECUTE_REFUND_ACTIVITY
from workflows.contracts import ModelRef, RunOutcome

pytestmark = pytest.mark.devserver

REPO_ROOT = Path(__file__).resolve().parents[2]
DEMO_MODEL = ModelRef(provider="scripted", model_id="demo")
# A fresh worker process takes seconds to import everything; more on a busy machine.
READY_SECONDS = 60
CRASH_SECONDS = 30
# The refund's start-to-close timeout (10 s), the retry's backoff, a margin.
FINISH_SECONDS = 40


@pytest.fixture
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    async with started_dev_server() as env:
        yield env


def refund_attempts(history: History) -> list[int]:
    """The attempt number that ended each execute_refund activity of the run."""
    refund_events = {
        event.event_id
        for event in history.events
        if event.activity_task_scheduled_event_attributes.activity_type.name
        == EXECUTE_REFUND_ACTIVITY
    }
    return [
        event.activity_task_started_event_attributes.attempt
        for event in history.events
        if event.HasField("activity_task_started_event_attributes")
        and event.activity_task_started_event_attributes.scheduled_event_id in refund_events
    ]


async def test_worker_killed_after_the_refund_committed(
    dev_server: WorkflowEnvironment, tmp_path: Path
) -> None:
    env = dev_server
    database_url = f"sqlite:///{tmp_path / 'signoff.db'}"
    engine = make_engine(database_url)
    seed_demo(engine)
    task_queue = new_task_queue()
    address = env.client.service_client.config.target_host
    log_path = tmp_path / "crash_worker.log"
    child_env = {key: value for key, value in os.environ.items() if not key.startswith("ANTHROPIC")}
    with log_path.open("w") as log:
        crashing = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.e2e.crash_worker",
                address,
                task_queue,
                database_url,
                str(tmp_path),
            ],
            cwd=REPO_ROOT,
            env=child_env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            request = run_request(
                datetime.now(UTC),
                ticket_id="T-1042",
                model=DEMO_MODEL,
                deadline=APPROVAL_RUN_DEADLINE,
            )
            handle = await start(env.client, request, task_queue)
            (action,) = await pending_actions(handle, within=READY_SECONDS)
            await decide(handle, decision(engine, "alice", action.action_hash))
            returncode = await asyncio.to_thread(crashing.wait, CRASH_SECONDS)
        finally:
            if crashing.poll() is None:
                crashing.kill()
                crashing.wait()
    assert returncode == -signal.SIGKILL, log_path.read_text()
    (committed,) = list_refunds(engine, "demo", "C-1042")  # the commit came before the kill
    assert (await handle.describe()).status is not None

    # The deployment's public key: the retry verifies the same signed approval.
    settings = Settings(home=tmp_path, database_url=database_url, task_queue=task_queue)
    install_test_keys(settings)
    async with build_worker(env.client, settings, engine):
        outcome = await asyncio.wait_for(handle.result(), FINISH_SECONDS)
    history = await handle.fetch_history()
    await replay(handle)
    engine.dispose()

    (row,) = list_refunds(engine, "demo", "C-1042")
    assert row.id == committed.id
    assert row.approver_list == ["alice"]
    assert refund_attempts(history) == [2]  # the lost attempt, then the retry that found it
    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, outcome.reason) == ("completed", "answered")
    assert outcome.effects_performed == [f"refund 89.90 EUR on order C-1042 (refund {row.id})"]
    assert outcome.final_text is not None and row.id in outcome.final_text
    assert [(d.kind, d.reviewer_id) for d in outcome.decisions] == [("approved", "alice")]
