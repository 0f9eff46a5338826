"""`signoff status` reads a run over the bare service (signoff/service/run_reading.py):
what it reads is what the client's workflow handle reads, while the run lives, after it
completed and after it was terminated; and a real `signoff status` loads none of the SDKs
it does without (tests/cli/test_status_imports.py). The other faces read a run's state
through the same reader, over their client's service (`pending.run_state`), encrypted
payloads too."""

from __future__ import annotations

import asyncio
import base64
import json
import os

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from typer.testing import CliRunner, Result

from signoff.config.data_converter import data_converter_for
from signoff.config.settings import Settings, get_settings
from signoff.config.temporal_service import TemporalService
from signoff.service import pending
from signoff.service.handles import Runs
from signoff.service.run_reading import (
    PayloadNotJson,
    RunNotFound,
    describe_run,
    run_outcome,
    run_state,
)
from signoff.wiring.app import app
from tests.cli.test_status_imports import unwanted_after
from tests.workflow.fakes import (
    FakeModel,
    FakeTools,
    Gate,
    new_task_queue,
    run_request,
    start,
    text_reply,
    tool_reply,
    worker,
)
from workflows.agent_run import AgentRun


def status_cli(
    env: WorkflowEnvironment, monkeypatch: pytest.MonkeyPatch, run_id: str, *more: str
) -> Result:
    """`signoff status` as a user types it, against this test server."""
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", env.client.service_client.config.target_host)
    get_settings.cache_clear()
    try:
        return CliRunner().invoke(app, ["status", run_id, *more])
    finally:
        get_settings.cache_clear()


PAYLOAD_KEY = "k1:" + base64.b64encode(bytes(range(32))).decode()


def service_of(env: WorkflowEnvironment) -> TemporalService:
    return TemporalService(env.client.service_client, env.client.namespace)


async def test_status_reads_what_the_handle_reads(
    time_skipping_env: WorkflowEnvironment, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = time_skipping_env
    gate = Gate()
    model = FakeModel().enqueue(tool_reply(("get_order", {})), gate, text_reply("Shipped."))
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time())
    async with worker(env.client, task_queue, model, FakeTools()):
        handle = await start(env.client, request, task_queue)
        await gate.reached.wait()
        running = await describe_run(service_of(env), handle.id)
        state = await run_state(service_of(env), handle.id)
        queried = await handle.query(AgentRun.state)
        shown = await asyncio.to_thread(status_cli, env, monkeypatch, handle.id, "--json")
        gate.open()
        outcome = await handle.result()
    completed = await describe_run(service_of(env), handle.id)
    read = await run_outcome(service_of(env), completed)
    shown_after = await asyncio.to_thread(status_cli, env, monkeypatch, handle.id, "--json")
    # And as a new process: the real path loads none of what status does without.
    address = {
        **os.environ,
        "SIGNOFF_TEMPORAL_ADDRESS": env.client.service_client.config.target_host,
    }
    loaded, printed = await asyncio.to_thread(unwanted_after, "status", handle.id, env=address)

    assert running.running and not running.completed
    assert state == queried and state is not None and state.status == "running"
    assert shown.exit_code == 0, shown.stderr
    assert json.loads(shown.stdout) == {
        "run_id": handle.id,
        "status": "running",
        "retrying": [],
        "state": queried.model_dump(mode="json"),
        "outcome": None,
    }
    assert completed.completed and read == outcome
    assert shown_after.exit_code == 0, shown_after.stderr
    assert json.loads(shown_after.stdout)["outcome"] == outcome.model_dump(mode="json")
    assert "outcome:  completed (answered)" in printed and loaded == []


async def test_a_terminated_run_shows_failed_and_exits_1(
    time_skipping_env: WorkflowEnvironment, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = time_skipping_env
    # No worker: nothing of the run is in flight when it ends (tests/conftest.py says why).
    handle = await start(env.client, run_request(await env.get_current_time()), new_task_queue())
    await handle.terminate("stopped by the test")
    shown = await asyncio.to_thread(status_cli, env, monkeypatch, handle.id)

    assert shown.exit_code == 1
    assert shown.stdout == f"run:      {handle.id}\nstatus:   failed\n"


async def test_an_unknown_run_is_not_found(
    time_skipping_env: WorkflowEnvironment, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(RunNotFound):
        await describe_run(service_of(time_skipping_env), "run-demo-nope")
    shown = await asyncio.to_thread(status_cli, time_skipping_env, monkeypatch, "run-demo-nope")
    assert shown.exit_code == 2
    assert "No run with id 'run-demo-nope'" in shown.stderr


async def test_the_faces_read_an_encrypted_run_as_the_handle_does(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    env = time_skipping_env
    config = env.client.config()
    config["data_converter"] = data_converter_for(Settings(payload_keys=PAYLOAD_KEY))
    client = Client(**config)
    gate = Gate()
    model = FakeModel().enqueue(tool_reply(("get_order", {})), gate, text_reply("Shipped."))
    task_queue = new_task_queue()
    async with worker(client, task_queue, model, FakeTools()):
        handle = await start(client, run_request(await env.get_current_time()), task_queue)
        await gate.reached.wait()
        read = await pending.run_state(Runs(client), handle.id)
        queried = await handle.query(AgentRun.state)
        with pytest.raises(PayloadNotJson, match="SIGNOFF_PAYLOAD_KEYS"):
            await pending.run_state(Runs(env.client), handle.id)  # a client without the key
        gate.open()
        await handle.result()

    assert read == queried and read is not None
    assert await pending.run_state(Runs(client), "run-demo-nope") is None
