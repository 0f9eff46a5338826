"""A worker process killed after an MCP server carried out an irreversible call, before
the effect was stored: one effect. The retry, on a new worker, finds the effect's claim
(`started`) and calls the server again with the same idempotency key in `_meta`; the
server (testkit/mcp_server.py) deduplicates by it, as the docs require of a connector.

Real processes and a real server: the Temporal dev server, the MCP test server, a dying
worker started from `mcp_crash_worker.py`, a normal worker in this process, and one
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
from temporalio.testing import WorkflowEnvironment

from activities.mcp.resolve import resolve_server
from activities.store import make_engine, seed_demo
from activities.store.connector_schema import ToolEffect
from activities.store.database import use_session
from signoff.config.profiles import load_profile_file
from signoff.service.handles import Store
from signoff.service.run_requests import run_offer
from signoff.wiring.worker import build_worker
from testkit.mcp_server import calls, labels
from tests.conftest import dev_server as started_dev_server
from tests.e2e.mcp_crash_worker import crash_settings
from tests.mcp.conftest import TIMEOUT_SECONDS, declared, mcp_server_process
from tests.mcp.test_mcp_runs import PROFILE
from tests.workflow.approvals import (
    APPROVAL_RUN_DEADLINE,
    decide,
    decision,
    install_test_keys,
    pending_actions,
)
from tests.workflow.fakes import new_task_queue, replay, run_request, start
from workflows.contracts import ModelRef

pytestmark = pytest.mark.devserver

REPO_ROOT = Path(__file__).resolve().parents[2]
READY_SECONDS = 60
CRASH_SECONDS = 30
# The label tool's own call_timeout: a worker killed mid-call is noticed after it.
CALL_TIMEOUT_SECONDS = 10
# That timeout, the retry's backoff, a margin; under the engine's default of 60 s, so
# the run would not finish in time if the tool's call_timeout were not the one used.
FINISH_SECONDS = 40
# The test's profile, with the label tool's call_timeout (its table comes last).
CRASH_PROFILE = PROFILE + f'call_timeout = "{CALL_TIMEOUT_SECONDS}s"\n'
LABEL_MODEL = ModelRef(provider="scripted", model_id="return-label")


@pytest.fixture
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    async with started_dev_server() as env:
        yield env


async def test_worker_killed_after_the_mcp_call_makes_one_effect(
    dev_server: WorkflowEnvironment, tmp_path: Path
) -> None:
    env = dev_server
    database_url = f"sqlite:///{tmp_path / 'signoff.db'}"
    engine = make_engine(database_url)
    seed_demo(engine)
    task_queue = new_task_queue()
    address = env.client.service_client.config.target_host
    with mcp_server_process(tmp_path / "state") as server:
        unpinned = await resolve_server("warranty", declared(url=server.url), TIMEOUT_SECONDS)
        profile_file = tmp_path / "warranty.toml"
        profile_file.write_text(CRASH_PROFILE.format(url=server.url, pin=unpinned.advertised))
        profiles = load_profile_file(profile_file)
        arguments = [address, task_queue, database_url, str(tmp_path), str(profile_file)]
        log_path = tmp_path / "mcp_crash_worker.log"
        child_env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC")}
        with log_path.open("w") as log:
            crashing = subprocess.Popen(
                [sys.executable, "-m", "tests.e2e.mcp_crash_worker", *arguments],
                cwd=REPO_ROOT,
                env=child_env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                request = run_request(
                    datetime.now(UTC),
                    ticket_id="T-1042",
                    model=LABEL_MODEL,
                    deadline=APPROVAL_RUN_DEADLINE,
                    **run_offer(Store(engine), profiles, "demo").fields(),
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
        (made,) = labels(server.state)  # the server acted before the kill
        settings = crash_settings(*arguments)
        install_test_keys(settings)
        async with build_worker(env.client, settings, engine, profiles=profiles):
            outcome = await asyncio.wait_for(handle.result(), FINISH_SECONDS)
        await replay(handle)

        assert labels(server.state) == [made]  # one effect
        keys = [call["key"] for call in calls(server.state)]
        assert keys == [made["key"], made["key"]]  # the lost call, then its retry
    assert outcome.status == "completed"
    with use_session(engine) as session:
        effect = session.get(ToolEffect, made["key"])
        assert effect is not None and effect.status == "done" and "RL-0001" in effect.output
    engine.dispose()
