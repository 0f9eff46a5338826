"""`signoff worker` drains on SIGTERM: the tool call in flight finishes, once, then exit 0.

Real parts only: the `signoff worker` command as a process, the Temporal dev server,
PostgreSQL, the scripted model. The slow tool call is made slow by the database itself:
the test holds an exclusive lock on `tickets`, so the run's `read_ticket` waits inside
its activity until the test lets go. SIGTERM arrives while it waits; the lock is
released after the worker said it is stopping; the activity must then complete on its
first attempt and the worker exit 0. A second signal must end the process at once.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url
from temporalio.api.enums.v1 import PendingActivityState
from temporalio.api.history.v1 import History
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from activities.store import make_engine, seed_demo
from signoff.config.settings import Settings
from signoff.wiring.worker import build_worker
from tests.conftest import dev_server as started_dev_server
from tests.deploy.worker_process import (
    READY_SECONDS,
    wait_until,
    worker_environment,
    worker_process,
)
from tests.postgres import postgres_cluster
from tests.workflow.approvals import TEST_SIGNER
from tests.workflow.fakes import new_task_queue, run_request, start
from workflows.contracts import RUN_TOOL_ACTIVITY, ModelRef, RunOutcome

pytestmark = [pytest.mark.devserver, pytest.mark.postgres]

DEMO_MODEL = ModelRef(provider="scripted", model_id="demo")
# Bounds on waiting for things to happen, never assertions on how long they took.
STOP_SECONDS = 60
# Longer than the test will ever hold the lock: the drain must not cut the activity.
SHUTDOWN_SECONDS = "120"


@pytest.fixture(scope="module")
def database_url() -> Iterator[str]:
    with postgres_cluster() as url:
        engine = make_engine(url)
        seed_demo(engine)
        engine.dispose()
        yield url


@pytest.fixture(scope="module")
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    async with started_dev_server() as env:
        yield env


@contextmanager
def tickets_locked(database_url: str) -> Iterator[psycopg.Connection[Any]]:
    """An open transaction holding `tickets` exclusively: readers wait until it ends."""
    url = make_url(database_url)
    with psycopg.connect(
        host=url.host, port=url.port, user=url.username, dbname=url.database
    ) as connection:
        connection.execute("LOCK TABLE tickets IN ACCESS EXCLUSIVE MODE")
        try:
            yield connection
        finally:
            connection.rollback()


async def tool_call_in_flight(handle: WorkflowHandle[Any, Any]) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while True:
        description = await handle.describe()
        started = [
            pending
            for pending in description.raw_description.pending_activities
            if pending.activity_type.name == RUN_TOOL_ACTIVITY
            and pending.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
        ]
        if started:
            return
        assert time.monotonic() < deadline, "the tool call never started"
        await asyncio.sleep(0.2)


def tool_attempts(history: History) -> tuple[list[int], int]:
    """The attempt of each run_tool start, and how many run_tool calls completed."""
    scheduled = {
        event.event_id
        for event in history.events
        if event.activity_task_scheduled_event_attributes.activity_type.name == RUN_TOOL_ACTIVITY
    }
    attempts = [
        event.activity_task_started_event_attributes.attempt
        for event in history.events
        if event.HasField("activity_task_started_event_attributes")
        and event.activity_task_started_event_attributes.scheduled_event_id in scheduled
    ]
    completed = sum(
        1
        for event in history.events
        if event.HasField("activity_task_completed_event_attributes")
        and event.activity_task_completed_event_attributes.scheduled_event_id in scheduled
    )
    return attempts, completed


async def test_sigterm_lets_the_tool_call_in_flight_finish_then_exits_0(
    dev_server: WorkflowEnvironment, database_url: str, tmp_path: Path
) -> None:
    client = dev_server.client
    task_queue = new_task_queue()
    address = client.service_client.config.target_host
    env = worker_environment(
        tmp_path,
        SIGNOFF_TEMPORAL_ADDRESS=address,
        SIGNOFF_TASK_QUEUE=task_queue,
        SIGNOFF_DATABASE_URL=database_url,
        SIGNOFF_WORKER_SHUTDOWN_SECONDS=SHUTDOWN_SECONDS,
    )
    with worker_process(env) as (worker, log_path):
        with tickets_locked(database_url):
            request = run_request(datetime.now(UTC), ticket_id="T-4512", model=DEMO_MODEL)
            handle = await start(client, request, task_queue)
            await tool_call_in_flight(handle)
            worker.send_signal(signal.SIGTERM)
            wait_until(lambda: "SIGTERM: stopping" in log_path.read_text(), "the drain")
            assert worker.poll() is None, log_path.read_text()  # it waits for the tool
        returncode = await asyncio.to_thread(worker.wait, STOP_SECONDS)
        said = log_path.read_text()
    assert returncode == 0, said
    assert "worker stopped" in said
    history = await handle.fetch_history()
    assert tool_attempts(history) == ([1], 1)  # finished by the draining worker, no retry

    # Polling stopped with the drain: the run waits for a worker, and the next one
    # finishes it from where the drained one left it.
    settings = Settings(
        home=tmp_path,
        database_url=database_url,
        task_queue=task_queue,
        trusted_key_ids=TEST_SIGNER.key_id,  # as worker_environment pins it
    )
    engine = make_engine(database_url)
    try:
        async with build_worker(client, settings, engine):
            outcome = await asyncio.wait_for(handle.result(), STOP_SECONDS)
    finally:
        engine.dispose()
    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, outcome.reason) == ("completed", "answered")
    attempts, _ = tool_attempts(await handle.fetch_history())
    assert set(attempts) == {1}


async def test_a_second_signal_leaves_at_once(
    dev_server: WorkflowEnvironment, database_url: str, tmp_path: Path
) -> None:
    client = dev_server.client
    task_queue = new_task_queue()
    address = client.service_client.config.target_host
    env = worker_environment(
        tmp_path,
        SIGNOFF_TEMPORAL_ADDRESS=address,
        SIGNOFF_TASK_QUEUE=task_queue,
        SIGNOFF_DATABASE_URL=database_url,
        SIGNOFF_WORKER_SHUTDOWN_SECONDS=SHUTDOWN_SECONDS,
    )
    with worker_process(env) as (worker, log_path):
        with tickets_locked(database_url):
            request = run_request(datetime.now(UTC), ticket_id="T-4512", model=DEMO_MODEL)
            handle = await start(client, request, task_queue)
            await tool_call_in_flight(handle)
            worker.send_signal(signal.SIGTERM)
            wait_until(lambda: "SIGTERM: stopping" in log_path.read_text(), "the drain")
            worker.send_signal(signal.SIGINT)
            # Still inside the lock: the process did not wait for the tool call.
            returncode = await asyncio.to_thread(worker.wait, STOP_SECONDS)
        said = log_path.read_text()
    assert returncode == 128 + signal.SIGINT, said
    assert "SIGINT again: leaving now" in said
    await handle.terminate("test over")
