"""`signoff status` over the Temporal frontend's HTTP API (signoff/service/run_http.py).

On a dev server that serves it, a new `signoff status` process shows what the workflow
handle reads, while the run lives, once it completed and after it was terminated,
without loading any of Temporal's SDK. Where the HTTP path cannot answer (nothing at its
address, a run it does not find) status still answers, over gRPC.
"""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from signoff.wiring.local_stack import free_port
from tests.cli.test_status_imports import NOT_FOR_STATUS, unwanted_after
from tests.conftest import dev_server
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

pytestmark = pytest.mark.devserver

NOTHING_OF_TEMPORAL = (*NOT_FOR_STATUS, "temporalio")


async def status(env: dict[str, str], *arguments: str) -> tuple[list[str], str]:
    """What a fresh `signoff status ARGUMENTS` loaded of Temporal's SDK, and printed."""
    return await asyncio.to_thread(
        unwanted_after, "status", *arguments, env=env, unwanted=NOTHING_OF_TEMPORAL
    )


async def test_status_reads_a_run_over_http_without_temporals_sdk() -> None:
    http_port = free_port()
    async with dev_server(http_port=http_port) as env:
        address = env.client.service_client.config.target_host
        over_http = {
            **os.environ,
            "SIGNOFF_TEMPORAL_ADDRESS": address,
            "SIGNOFF_TEMPORAL_HTTP_ADDRESS": f"127.0.0.1:{http_port}",
        }
        gate = Gate()
        model = FakeModel().enqueue(tool_reply(("get_order", {})), gate, text_reply("Shipped."))
        task_queue = new_task_queue()
        async with worker(env.client, task_queue, model, FakeTools()):
            handle = await start(env.client, run_request(await env.get_current_time()), task_queue)
            await gate.reached.wait()
            loaded_running, shown_running = await status(over_http, handle.id, "--json")
            queried = await handle.query(AgentRun.state)
            gate.open()
            outcome = await handle.result()
        loaded_done, shown_done = await status(over_http, handle.id, "--json")

        stopped = await start(env.client, run_request(await env.get_current_time()), task_queue)
        await stopped.terminate("stopped by the test")
        loaded_stopped, shown_stopped = await status(over_http, stopped.id)

        # Where HTTP cannot answer, gRPC does: a run HTTP does not find, no HTTP API.
        loaded_unknown, shown_unknown = await status(over_http, "run-demo-nope")
        no_http = {**over_http, "SIGNOFF_TEMPORAL_HTTP_ADDRESS": f"127.0.0.1:{free_port()}"}
        loaded_grpc, shown_grpc = await status(no_http, handle.id, "--json")

    assert loaded_running == [] and json.loads(shown_running) == {
        "run_id": handle.id,
        "status": "running",
        "retrying": [],
        "state": queried.model_dump(mode="json"),
        "outcome": None,
    }
    assert loaded_done == []
    assert json.loads(shown_done)["outcome"] == outcome.model_dump(mode="json")
    assert json.loads(shown_done)["status"] == "completed"
    assert loaded_stopped == []
    assert shown_stopped.strip() == f"run:      {stopped.id}\nstatus:   failed"
    assert "No run with id 'run-demo-nope'" in shown_unknown
    assert "temporalio" in loaded_unknown
    assert json.loads(shown_grpc) == json.loads(shown_done)
    assert "temporalio" in loaded_grpc
