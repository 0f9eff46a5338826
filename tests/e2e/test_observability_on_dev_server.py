"""`signoff dev` with every observability setting on, as an operator turns them on.

A private stack (its own dev server, worker and UI) with `SIGNOFF_LOG_FORMAT=json`,
`SIGNOFF_METRICS_PORT`, `SIGNOFF_TEMPORAL_METRICS_PORT` and
`OTEL_EXPORTER_OTLP_ENDPOINT` aimed at a local OTLP/HTTP receiver in this test. One run
started with the CLI, then: its spans arrived over OTLP in one trace, the worker's
`/metrics` counted it, the SDK's own metrics are served, the UI serves `/metrics`, and
the launcher's log lines about the run are JSON naming the run, tenant and that trace.
The scrape token is made, and the UI scraped, by the commands of
docs/operating/observability.md, as printed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from signoff.wiring.local_stack import SIGNOFF, free_port, signoff_dev_stack
from tests.docs.shell_commands import DOCS, shell_commands
from tests.e2e.cli import json_of, signoff

pytestmark = pytest.mark.devserver
SPANS_SECONDS = 30.0


class Received:
    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.bodies: list[bytes] = []  # every export as sent, for a grep of all of it
        self.lock = threading.Lock()

    def add(self, body: bytes) -> None:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        with self.lock:
            self.bodies.append(body)
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        self.spans.append(
                            {
                                "name": span.name,
                                "trace_id": span.trace_id.hex(),
                                "attributes": {
                                    a.key: a.value.string_value or a.value.int_value
                                    for a in span.attributes
                                },
                            }
                        )

    def of_run(self, run_id: str) -> list[dict[str, Any]]:
        with self.lock:
            return [
                s
                for s in self.spans
                if run_id
                in (
                    s["attributes"].get("signoff.run_id"),
                    s["attributes"].get("temporalWorkflowID"),
                )
            ]


@contextmanager
def otlp_receiver() -> Iterator[tuple[int, Received]]:
    received = Received()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if self.path == "/v1/traces":
                received.add(body)
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], received
    finally:
        server.shutdown()
        server.server_close()


def scrape(port: int, token: str, path: str = "/metrics") -> str:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return str(answer.read().decode())


def test_a_run_seen_through_traces_metrics_and_json_logs(tmp_path: Path) -> None:
    make_token, scrape_ui = shell_commands(DOCS / "operating" / "observability.md")
    token = subprocess.run(
        ["bash", "-c", f'{make_token}\nprintf %s "$SIGNOFF_METRICS_TOKEN"'],
        env={**os.environ, "PATH": f"{Path(SIGNOFF).parent}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", token), token
    metrics_port, sdk_metrics_port = free_port(), free_port()
    with otlp_receiver() as (otlp_port, received):
        with signoff_dev_stack(
            tmp_path,
            task_queue="e2e-observe",
            SIGNOFF_LOG_FORMAT="json",
            SIGNOFF_METRICS_PORT=str(metrics_port),
            SIGNOFF_METRICS_TOKEN=token,
            SIGNOFF_TEMPORAL_METRICS_PORT=str(sdk_metrics_port),
            OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{otlp_port}",
            OTEL_BSP_SCHEDULE_DELAY="200",
        ) as (env, _):
            done = signoff(env, "run", "--ticket", "T-4512", "--request-id", "obs-1", "--wait")
            assert done.returncode == 0, done.stderr
            run_id = "run-demo-obs-1"
            deadline = time.monotonic() + SPANS_SECONDS
            while not any(s["name"] == "RunActivity:model_turn" for s in received.of_run(run_id)):
                assert time.monotonic() < deadline, received.spans[:5]
                time.sleep(0.5)
            worker_metrics = scrape(metrics_port, token)
            sdk_metrics = scrape(sdk_metrics_port, token)
            ui = f"http://127.0.0.1:{env['SIGNOFF_UI_PORT']}"
            ui_metrics = subprocess.run(
                ["bash", "-c", scrape_ui.replace("http://127.0.0.1:8000", ui)],
                env={**env, "SIGNOFF_METRICS_TOKEN": token},
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            status = json_of(signoff(env, "status", run_id, "--json"))
        log_lines = (tmp_path / "dev.log").read_text().splitlines()

    spans = received.of_run(run_id)
    assert {s["trace_id"] for s in spans} and len({s["trace_id"] for s in spans}) == 1
    [trace_id] = {s["trace_id"] for s in spans}
    names = {s["name"] for s in spans}
    assert "RunWorkflow:AgentRun" in names
    assert {"chat demo", "execute_tool read_ticket"} <= names  # GenAI conventions' names
    turns = [s for s in spans if s["name"].startswith("chat ")]
    assert len(turns) == status["outcome"]["turns_used"]
    assert all(s["attributes"]["signoff.tenant"] == "demo" for s in turns)

    runs = 'signoff_runs_total{reason="answered",status="completed",workflow="AgentRun"}'
    assert any(line.startswith(runs) for line in worker_metrics.splitlines())
    assert "temporal_workflow_completed" in sdk_metrics
    assert "signoff_pending_actions" in ui_metrics

    about_run = [
        json.loads(line)
        for line in log_lines
        if line.startswith("{") and json.loads(line).get("run_id") == run_id
    ]
    assert any(line["message"] == "run finished: completed (answered)" for line in about_run)
    assert all((line["tenant"], line["trace_id"]) == ("demo", trace_id) for line in about_run)
