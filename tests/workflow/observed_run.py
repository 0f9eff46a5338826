"""One whole refund run as production runs it, watched: spans, log lines, metrics.

The worker is `build_worker` with its real settings (scripted demo model, the store,
the decision key), on a client that carries the production interceptors
(`client_interceptors`), against the time-skipping server. The run is started through
the service (`new_run_request`, `start_run`), waits for alice's signed approval, and
refunds. Spans go to an in-memory exporter on the process's tracer provider; log lines
go through the JSON formatter into a buffer; the worker serves `/metrics` on a free
port, scraped while the refund waits and after the run.
"""

from __future__ import annotations

import io
import logging
import socket
import urllib.request
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from sqlalchemy import Engine
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from activities.metrics import register_store_gauges
from signoff.config.logs import configure_logging
from signoff.config.settings import Settings
from signoff.config.telemetry import client_interceptors
from signoff.service.handles import Runs, Store
from signoff.service.run_requests import new_run_request
from signoff.service.runs import start_run
from signoff.wiring.observability import serve_worker_metrics
from signoff.wiring.worker import build_worker
from tests.workflow.approvals import decide, decision, install_test_keys, pending_actions
from tests.workflow.fakes import new_task_queue
from workflows.actions import PendingAction
from workflows.contracts import ModelRef, RunOutcome

DEMO_MODEL = ModelRef(provider="scripted", model_id="demo")
# Time-skipping moves the run's clock past the wall clock that signs the decision.
SKIPPING_MAX_AGE_SECONDS = 1000 * 365 * 86400.0


@lru_cache(maxsize=1)
def span_exporter() -> InMemorySpanExporter:
    """The process's tracer provider, set once, exporting to memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return exporter


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def scrape(engine: Engine, port: int) -> str:
    # The store's gauges are refreshed in the background at an interval; here, now (the
    # worker registers the same gauges on the same engine).
    register_store_gauges(engine).refresh()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        return str(answer.read().decode())


@dataclass
class ObservedRun:
    run_id: str
    trace_id: str  # the run request's
    outcome: RunOutcome
    pending: PendingAction
    spans: list[ReadableSpan]
    log_text: str
    scrape_before: str
    scrape_waiting: str
    scrape_after: str
    settings: Settings
    extra: dict[str, Any] = field(default_factory=dict)


def observed_settings(home: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "home": home,
        "database_url": f"sqlite:///{home / 'signoff.db'}",
        "decision_max_age_seconds": SKIPPING_MAX_AGE_SECONDS,
        "task_queue": new_task_queue(),
        "log_format": "json",
        "metrics_port": free_port(),
    }
    values.update(overrides)
    settings = Settings(**values)
    install_test_keys(settings)
    return settings


async def observed_refund_run(
    env: WorkflowEnvironment, engine: Engine, settings: Settings
) -> ObservedRun:
    exporter = span_exporter()
    exporter.clear()
    buffer = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = configure_logging(settings, stream=buffer)
    server = serve_worker_metrics(settings)
    assert server is not None and settings.metrics_port is not None
    try:
        config = env.client.config()
        config["interceptors"] = [*client_interceptors(), *config["interceptors"]]
        client = Client(**config)
        before = scrape(engine, settings.metrics_port)
        # The shared test server's clock may be far ahead of the wall clock (other
        # tests skip time): the deadline counts from the server's now.
        now = await env.get_current_time()
        request = new_run_request(
            settings, Store(engine), tenant_id="demo", ticket_id="T-1042", model=DEMO_MODEL, now=now
        )
        async with build_worker(client, settings, engine):
            handle, _ = await start_run(Runs(client), request, settings.task_queue, now=now)
            [action] = await pending_actions(handle)
            waiting = scrape(engine, settings.metrics_port)
            await decide(handle, decision(engine, "alice", action.action_hash))
            outcome: RunOutcome = await handle.result()
        after = scrape(engine, settings.metrics_port)
    finally:
        server.shutdown()
        server.server_close()
        root.removeHandler(handler)
        root.setLevel(level)
    return ObservedRun(
        run_id=handle.id,
        trace_id=request.trace_id,
        outcome=outcome,
        pending=action,
        spans=list(exporter.get_finished_spans()),
        log_text=buffer.getvalue(),
        scrape_before=before,
        scrape_waiting=waiting,
        scrape_after=after,
        settings=settings,
    )
