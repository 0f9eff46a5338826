"""Settings to telemetry: the run a workflow id names, JSON log lines (with secrets blanked),
OTLP export only when its endpoint is set, and no listener unless a port is set.

The tracing checks run in a fresh interpreter each: a process's tracer provider can be
set once, and whether the exporter module was imported is a fact about the process.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from signoff.config.logs import REDACTED, JsonFormatter, settings_secrets
from signoff.config.run_identity import run_identity
from signoff.config.settings import Settings
from signoff.config.telemetry import run_trace, worker_runtime
from signoff.wiring.observability import serve_worker_metrics

KEY = "sk-ant-unit-test-key-7d3e9a"


@pytest.mark.parametrize(
    ("workflow_id", "run_id", "tenant"),
    [
        ("run-demo-abc123", "run-demo-abc123", "demo"),
        ("run-acme.eu-req-with-dashes", "run-acme.eu-req-with-dashes", "acme.eu"),
        ("triage-globex-42", "triage-globex-42", "globex"),
        ("observe-test-1", "observe-test-1", None),
        ("run-", "run-", None),
        ("", "", None),
    ],
)
def test_run_identity(workflow_id: str, run_id: str, tenant: str | None) -> None:
    assert run_identity(workflow_id) == (run_id, tenant)


def record(message: str, **extra: object) -> logging.LogRecord:
    line = logging.LogRecord("signoff.test", logging.INFO, __file__, 1, message, (), None)
    line.__dict__.update(extra)
    return line


def test_a_json_line_names_run_tenant_and_trace() -> None:
    context = SpanContext(
        trace_id=0x0AF7651916CD43DD8448EB211C80319C,
        span_id=0x00F067AA0BA902B7,
        is_remote=False,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
    )
    details = {"workflow_id": "run-demo-r1", "activity_type": "model_turn"}
    with trace.use_span(NonRecordingSpan(context)):
        line = json.loads(JsonFormatter().format(record("turn %d", temporal_activity=details)))
    assert line["message"] == "turn %d"  # no args given: the text as written
    assert (line["run_id"], line["tenant"], line["step"]) == ("run-demo-r1", "demo", "model_turn")
    assert line["trace_id"] == "0af7651916cd43dd8448eb211c80319c"
    assert line["span_id"] == "00f067aa0ba902b7"


def test_a_line_outside_any_run_says_so() -> None:
    line = json.loads(JsonFormatter().format(record("worker starting")))
    assert (line["run_id"], line["tenant"], line["trace_id"]) == (None, None, None)


def test_secrets_are_blanked_in_messages_and_tracebacks(tmp_path: Path) -> None:
    settings = Settings(
        home=tmp_path,
        anthropic_api_key=KEY,
        reviewer_token="d" * 40,
        database_url="postgresql+psycopg://signoff:pg-secret-pass@db/signoff",
    )
    secrets = settings_secrets(settings)
    assert set(secrets) == {KEY, "d" * 40, "pg-secret-pass"}
    formatter = JsonFormatter(secrets)
    try:
        raise RuntimeError(f"bad key {KEY}")
    except RuntimeError:
        failure = logging.LogRecord(
            "x", logging.ERROR, __file__, 1, "connecting with %s", (KEY,), sys.exc_info()
        )
    text = formatter.format(failure)
    assert KEY not in text and "pg-secret-pass" not in text
    line = json.loads(text)
    assert line["message"] == f"connecting with {REDACTED}"
    assert f"bad key {REDACTED}" in line["exception"]


def traced_process(**variables: str) -> dict[str, object]:
    """configure_tracing in a fresh interpreter, with only `variables` of OTEL_/SIGNOFF_."""
    script = (
        "import json, sys\n"
        "from opentelemetry import trace\n"
        "from signoff.config.settings import Settings\n"
        "from signoff.config.telemetry import configure_tracing\n"
        "on = configure_tracing(Settings(), 'worker')\n"
        "print(json.dumps({'on': on,"
        " 'exporter': 'opentelemetry.exporter.otlp.proto.http.trace_exporter' in sys.modules,"
        " 'provider': type(trace.get_tracer_provider()).__name__}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "SIGNOFF_"))}
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env | variables,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_no_endpoint_no_export_and_no_exporter_import() -> None:
    assert traced_process() == {"on": False, "exporter": False, "provider": "ProxyTracerProvider"}


def test_an_endpoint_turns_on_otlp_export() -> None:
    # Nothing listens there and nothing is sent: the process only sets the pipeline up.
    result = traced_process(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9")
    assert result == {"on": True, "exporter": True, "provider": "TracerProvider"}


def test_no_port_no_listener(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    assert settings.metrics_port is None and settings.temporal_metrics_port is None
    assert serve_worker_metrics(settings) is None
    assert worker_runtime(settings) is None


def test_a_run_is_started_in_the_trace_its_request_names() -> None:
    # A starter that exports nothing (no SDK provider): the no-op tracer's span still
    # carries the run's trace id, which the tracing interceptor puts in the headers.
    hex_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    with run_trace(hex_id):
        with trace.NoOpTracer().start_as_current_span("StartWorkflow:AgentRun") as span:
            started = span.get_span_context()
    assert started.is_valid and format(started.trace_id, "032x") == hex_id
    assert started.trace_flags.sampled

    with run_trace("request-id-that-is-not-hex"):
        first = trace.get_current_span().get_span_context()
    with run_trace("request-id-that-is-not-hex"):
        again = trace.get_current_span().get_span_context()
    assert first.is_valid and (first.trace_id, first.span_id) == (again.trace_id, again.span_id)
    assert not trace.get_current_span().get_span_context().is_valid  # left as it was
