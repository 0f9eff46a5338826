"""A worker killed after Stripe accepted the refund, before its activity completed.

Stripe (localstripe) holds the refund; signoff's store holds its spent approvals and no
record of the refund. Temporal retries the attempt on another worker when its
start-to-close timeout runs out; the retry looks the key up in Stripe before anything
else, finds the refund and records it: one refund in Stripe, one mirror row, and the
run reports it. localstripe honours no idempotency key, so only that look-up stands
between the retry and a second refund.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from activities.payments.registry import PaymentConnectors
from activities.store import list_refunds, make_engine, seed_demo
from signoff.wiring.worker import build_worker
from tests.conftest import dev_server as started_dev_server
from tests.e2e.test_crash_after_commit import (
    CRASH_SECONDS,
    DEMO_MODEL,
    FINISH_SECONDS,
    READY_SECONDS,
    REPO_ROOT,
    refund_attempts,
)
from tests.payments.conftest import ORDER, link_paid_order, stripe_settings
from tests.payments.localstripe import LocalStripe
from tests.workflow.approvals import (
    APPROVAL_RUN_DEADLINE,
    decide,
    decision,
    install_test_keys,
    pending_actions,
)
from tests.workflow.fakes import new_task_queue, replay, run_request, start
from workflows.contracts import RunOutcome

pytestmark = pytest.mark.devserver

POLLING = "stripe crash worker polling"  # what stripe_crash_worker.py prints once it polls


@pytest.fixture
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    async with started_dev_server() as env:
        yield env


async def test_worker_killed_after_stripe_accepted_the_refund(
    dev_server: WorkflowEnvironment, tmp_path: Path, localstripe: LocalStripe
) -> None:
    env = dev_server
    database_url = f"sqlite:///{tmp_path / 'signoff.db'}"
    engine = make_engine(database_url)
    seed_demo(engine)
    task_queue = new_task_queue()
    settings = stripe_settings(
        tmp_path, localstripe, database_url=database_url, task_queue=task_queue
    )
    install_test_keys(settings)
    _, charge = link_paid_order(engine, PaymentConnectors(settings), localstripe, 4999)
    address = env.client.service_client.config.target_host
    log_path = tmp_path / "stripe_crash_worker.log"
    child_env = {key: value for key, value in os.environ.items() if not key.startswith("ANTHROPIC")}
    arguments = [address, task_queue, database_url, str(tmp_path)]
    arguments += [str(settings.stripe_keys_file), localstripe.url]
    with log_path.open("w") as log:
        crashing = subprocess.Popen(
            [sys.executable, "-m", "tests.payments.stripe_crash_worker", *arguments],
            cwd=REPO_ROOT,
            env=child_env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            # Its imports take long on a busy machine: start the run once it polls, so
            # that the first query does not wait out its own timeout.
            deadline = time.monotonic() + READY_SECONDS
            while POLLING not in log_path.read_text():
                assert crashing.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, "the crashing worker never polled"
                await asyncio.sleep(0.1)
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
    (accepted,) = localstripe.refunds(charge)  # Stripe took it before the kill
    assert list_refunds(engine, "demo", ORDER) == []  # and signoff never recorded it

    async with build_worker(env.client, settings, engine):
        outcome = await asyncio.wait_for(handle.result(), FINISH_SECONDS)
    history = await handle.fetch_history()
    await replay(handle)
    engine.dispose()

    assert [r["id"] for r in localstripe.refunds(charge)] == [accepted["id"]]
    assert accepted["amount"] == 4999
    (row,) = list_refunds(engine, "demo", ORDER)
    assert (row.id, row.approver_list) == (accepted["id"], ["alice"])
    assert refund_attempts(history) == [2]  # the lost attempt, then the retry that found it
    assert isinstance(outcome, RunOutcome)
    assert outcome.effects_performed == [
        f"refund 49.99 EUR on order {ORDER} (refund {accepted['id']})"
    ]
