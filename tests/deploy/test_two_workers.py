"""Two workers on one task queue: one dies with SIGKILL, the other finishes every run.

Real parts only: the Temporal dev server, two `signoff worker` processes sharing one
SQLite store and one decision key, and the local Messages API fake for the one run
whose model turn must be caught in flight (its reply is held back; the scripted model
answers too fast to be caught).

The order makes sure the dying worker holds what the issue names when it dies:
1. worker A alone: three refund runs reach their approval and wait, cached on A, and a
   fourth run's model turn starts on A and hangs on the model;
2. worker B starts polling;
3. A gets SIGKILL: no goodbye to the server, as when its machine loses power;
4. reviewers approve the three refunds (two of them for the four-eyes one).

B must then finish all four runs: each refund once, and the model turn retried on B
once the server stops hearing A's heartbeat.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import PendingActivityState
from temporalio.api.history.v1 import History
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from activities.store import list_refunds, make_engine, seed_demo
from tests.anthropic_server import FakeMessagesApi, message, serving, text
from tests.conftest import dev_server as started_dev_server
from tests.deploy.worker_process import wait_until, worker_environment, worker_process
from tests.workflow.approvals import APPROVAL_RUN_DEADLINE, decide, decision
from tests.workflow.approvals import pending_actions as waiting_actions
from tests.workflow.fakes import new_task_queue, replay, run_request, start
from workflows.contracts import MODEL_TURN_ACTIVITY, ModelRef, RunOutcome

pytestmark = pytest.mark.devserver

SCRIPTED = ModelRef(provider="scripted", model_id="demo")
CLAUDE = ModelRef(provider="anthropic", model_id="claude-test-1")
REFUNDS = {"T-1042": "C-1042", "T-2210": "C-2210", "T-3107": "C-3107"}
# Longer than the test takes to start worker B and kill A: the held reply never arrives.
HELD_REPLY_SECONDS = 90
# Bounds on waiting, never assertions on how long things took. Finishing includes the
# model turn's 30 s heartbeat timeout and the dead worker's sticky queue timing out.
READY_SECONDS = 60
FINISH_SECONDS = 120


@pytest.fixture
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    async with started_dev_server() as env:
        yield env


@pytest.fixture
def model_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesApi]:
    with serving(monkeypatch) as api:
        yield api


async def turn_in_flight(handle: WorkflowHandle[Any, Any]) -> str:
    """Wait until the run's model turn runs on a worker; return that worker's identity."""
    deadline = asyncio.get_running_loop().time() + READY_SECONDS
    while True:
        description = await handle.describe()
        for pending in description.raw_description.pending_activities:
            if (
                pending.activity_type.name == MODEL_TURN_ACTIVITY
                and pending.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
            ):
                return pending.last_worker_identity
        assert asyncio.get_running_loop().time() < deadline, "the model turn never started"
        await asyncio.sleep(0.2)


def task_identities(history: History) -> list[str]:
    """Who completed each workflow task of the run, in order."""
    return [
        event.workflow_task_completed_event_attributes.identity
        for event in history.events
        if event.HasField("workflow_task_completed_event_attributes")
    ]


def model_turn_starts(history: History) -> list[tuple[int, str]]:
    """(attempt, worker identity) of each model turn's recorded start."""
    return [
        (
            event.activity_task_started_event_attributes.attempt,
            event.activity_task_started_event_attributes.identity,
        )
        for event in history.events
        if event.HasField("activity_task_started_event_attributes")
        and history.events[
            event.activity_task_started_event_attributes.scheduled_event_id - 1
        ].activity_task_scheduled_event_attributes.activity_type.name
        == MODEL_TURN_ACTIVITY
    ]


async def test_a_worker_killed_mid_turn_and_mid_wait_leaves_every_run_to_the_other(
    dev_server: WorkflowEnvironment, model_api: FakeMessagesApi, tmp_path: Path
) -> None:
    client = dev_server.client
    task_queue = new_task_queue()
    database_url = f"sqlite:///{tmp_path / 'signoff.db'}"
    engine = make_engine(database_url)
    seed_demo(engine)
    env = worker_environment(
        tmp_path,
        SIGNOFF_TEMPORAL_ADDRESS=client.service_client.config.target_host,
        SIGNOFF_TASK_QUEUE=task_queue,
        SIGNOFF_DATABASE_URL=database_url,
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=model_api.base_url,
    )
    model_api.enqueue(
        200, message([text("Held back.")], "end_turn"), delay_seconds=HELD_REPLY_SECONDS
    )
    model_api.reply(message([text("Order 4512 is on its way.")], "end_turn"))

    with worker_process(env, "worker-a") as (worker_a, log_a):
        refunds: dict[str, WorkflowHandle[Any, Any]] = {}
        for ticket_id in REFUNDS:
            request = run_request(
                datetime.now(UTC),
                ticket_id=ticket_id,
                model=SCRIPTED,
                deadline=APPROVAL_RUN_DEADLINE,
            )
            refunds[ticket_id] = await start(client, request, task_queue)
        waiting = {
            ticket_id: (await waiting_actions(handle, within=READY_SECONDS))[0]
            for ticket_id, handle in refunds.items()
        }
        asked = await start(client, run_request(datetime.now(UTC), model=CLAUDE), task_queue)
        turn_worker = await turn_in_flight(asked)
        wait_until(lambda: len(model_api.requests) == 1, "the model turn to reach the model")
        assert turn_worker.startswith(f"{worker_a.pid}@"), turn_worker

        with worker_process(env, "worker-b") as (worker_b, log_b):
            worker_a.send_signal(signal.SIGKILL)
            assert await asyncio.to_thread(worker_a.wait, READY_SECONDS) == -signal.SIGKILL

            for ticket_id, action in waiting.items():
                reviewers = ["alice", "bob"][: action.required_approvals]
                for reviewer in reviewers:
                    await decide(refunds[ticket_id], decision(engine, reviewer, action.action_hash))
            handles = [*refunds.values(), asked]
            outcomes = await asyncio.wait_for(
                asyncio.gather(*(handle.result() for handle in handles)), FINISH_SECONDS
            )
            assert worker_b.poll() is None, log_b.read_text()
            b_identity = f"{worker_b.pid}@"

    for outcome in outcomes:
        assert isinstance(outcome, RunOutcome)
        assert (outcome.status, outcome.reason) == ("completed", "answered"), outcome.detail
    for ticket_id, order_id in REFUNDS.items():
        (row,) = list_refunds(engine, "demo", order_id)  # one refund each, none doubled
        assert row.run_id == refunds[ticket_id].id
        outcome = outcomes[list(REFUNDS).index(ticket_id)]
        assert len(outcome.effects_performed) == 1, outcome.effects_performed

        # The run waited cached on A; after the kill, B alone moved it on.
        identities = task_identities(await refunds[ticket_id].fetch_history())
        a_identity = f"{worker_a.pid}@"
        assert identities[0].startswith(a_identity), identities
        after_a = identities[[i.startswith(a_identity) for i in identities].index(False) :]
        assert after_a and all(i.startswith(b_identity) for i in after_a), identities
    engine.dispose()

    asked_history = await asked.fetch_history()
    # A's attempt died with it; the server timed it out and B's second attempt answered.
    assert [(attempt, who.split("@")[0]) for attempt, who in model_turn_starts(asked_history)] == [
        (2, str(worker_b.pid))
    ]
    assert len(model_api.requests) == 2
    assert outcomes[-1].final_text == "Order 4512 is on its way."
    for handle in [*refunds.values(), asked]:
        await replay(handle)
    assert "Traceback" not in log_a.read_text() + log_b.read_text()
