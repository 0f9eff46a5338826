"""`signoff status` over the Temporal frontend's HTTP API (signoff/service/run_http.py).

On a dev server that serves it, a new `signoff status` process shows what the workflow
handle reads, while the run lives, once it completed and after it was terminated,
without loading any of Temporal's SDK. Where the HTTP path cannot answer (nothing at its
address, a run it does not find) status still answers, over gRPC. Behind mutual TLS (a
TLS proxy in front of each port, tests/deploy/tls_proxy.py) it reads over HTTPS with the
gRPC settings' certificates; with an API key it keeps the gRPC path.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from signoff.wiring.local_stack import free_port
from tests.cli.test_status_imports import NOT_FOR_STATUS, unwanted_after
from tests.conftest import dev_server
from tests.deploy.certificates import make_certificates
from tests.deploy.tls_proxy import tls_proxy
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


async def test_status_reads_over_https_behind_mutual_tls(tmp_path: Path) -> None:
    certificates = make_certificates(tmp_path)
    http_port = free_port()
    async with dev_server(http_port=http_port) as env:
        grpc_upstream = env.client.service_client.config.target_host
        async with (
            tls_proxy(grpc_upstream, certificates, require_client_cert=True) as grpc,
            tls_proxy(f"127.0.0.1:{http_port}", certificates, require_client_cert=True) as https,
        ):
            mutual_tls = {
                **os.environ,
                "SIGNOFF_TEMPORAL_ADDRESS": grpc.address,
                "SIGNOFF_TEMPORAL_HTTP_ADDRESS": https.address,
                "SIGNOFF_TEMPORAL_TLS_SERVER_CA_FILE": str(certificates.ca),
                "SIGNOFF_TEMPORAL_TLS_CLIENT_CERT_FILE": str(certificates.client_cert),
                "SIGNOFF_TEMPORAL_TLS_CLIENT_KEY_FILE": str(certificates.client_key),
            }
            model = FakeModel().enqueue(text_reply("Shipped."))
            task_queue = new_task_queue()
            async with worker(env.client, task_queue, model, FakeTools()):
                handle = await start(
                    env.client, run_request(await env.get_current_time()), task_queue
                )
                outcome = await handle.result()
            loaded_https, shown_https = await status(mutual_tls, handle.id, "--json")
            seen_over_https = list(https.client_names)
            with_key = {**mutual_tls, "SIGNOFF_TEMPORAL_API_KEY": "a-key"}
            loaded_key, shown_key = await status(with_key, handle.id, "--json")

    assert loaded_https == []
    assert json.loads(shown_https)["outcome"] == outcome.model_dump(mode="json")
    assert seen_over_https and all(name == "signoff-worker" for name in seen_over_https)
    assert "temporalio" in loaded_key  # an API key keeps the gRPC path
    assert json.loads(shown_key) == json.loads(shown_https)
