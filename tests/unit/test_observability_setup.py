"""Settings to telemetry: the run a workflow id names, JSON log lines (with secrets blanked),
OTLP export only when its endpoint is set, and no listener unless a port is set.

The tracing checks run in a fresh interpreter each: a process's tracer provider can be
set once, and whether the exporter module was imported is a fact about the process.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from signoff.config.logs import REDACTED, JsonFormatter, configure_logging, settings_secrets
from signoff.config.run_identity import run_identity
from signoff.config.settings import Settings
from signoff.config.telemetry import invoke_agent_span, run_trace, worker_runtime
from signoff.wiring.observability import serve_worker_metrics
from tests.workflow.observed_run import free_port

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
        token="d" * 40,
        database_url="postgresql+psycopg://signoff:pg-secret-pass@db/signoff",
        migration_database_url="postgresql+psycopg://owner:pg-owner-pass@db/signoff",
    )
    secrets = settings_secrets(settings)
    assert set(secrets) == {KEY, "d" * 40, "pg-secret-pass", "pg-owner-pass"}
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


def test_every_secret_the_settings_name_is_blanked_in_both_formats(tmp_path: Path) -> None:
    ring = {"signing": "k", "private_keys": {"k": "9f8e7d6c5b4a" * 5 + "3210"}}
    (tmp_path / "decision-signing-keys.json").write_text(json.dumps(ring))
    api_key_file = tmp_path / "temporal-api-key"
    api_key_file.write_text("temporal-key-from-file-0a1b2c3d\n")
    payload_key = base64.b64encode(b"p" * 32).decode()
    settings = Settings(
        home=tmp_path,
        openai_api_key="sk-openai-unit-4c5d6e7f",
        temporal_api_key_file=api_key_file,
        metrics_token="metrics-token-1a2b3c4d",
        token="caller-api-token-5e6f7a8b",
        payload_keys=f"k1:{payload_key}",
        ui_secret="u" * 40,
        notify_webhook_url="https://hooks.example/services/T1/B2/tok3n-in-the-path",
        database_url="postgresql+psycopg://signoff:p%40ss-word-1234@db/signoff",
    )
    secrets = [
        "sk-openai-unit-4c5d6e7f",
        "temporal-key-from-file-0a1b2c3d",
        "metrics-token-1a2b3c4d",
        "caller-api-token-5e6f7a8b",
        payload_key,
        "u" * 40,
        "9f8e7d6c5b4a" * 5 + "3210",  # the decision service's private key
        "/services/T1/B2/tok3n-in-the-path",
        "p@ss-word-1234",
        "p%40ss-word-1234",
    ]
    message = "; ".join(secrets) + "; POST https://hooks.example/services/T1/B2/tok3n-in-the-path"
    logged = logging.LogRecord("httpx", logging.INFO, __file__, 1, message, (), None)
    level = logging.getLogger().level
    for log_format in ("json", "text"):
        buffer = io.StringIO()
        handler = configure_logging(settings.model_copy(update={"log_format": log_format}), buffer)
        try:
            handler.handle(logged)
            assert logging.getLogger("httpx").level == logging.WARNING
        finally:
            logging.getLogger().removeHandler(handler)
            logging.getLogger().setLevel(level)
        written = buffer.getvalue()
        assert REDACTED in written
        assert [secret for secret in secrets if secret in written] == [], log_format
        assert "tok3n" not in written


def test_a_printed_database_url_hides_its_password(tmp_path: Path) -> None:
    url = "postgresql+psycopg://signoff:pg-secret-pass@db:5432/signoff"
    assert Settings(home=tmp_path, database_url=url).shown_database_url == (
        "postgresql+psycopg://signoff:***@db:5432/signoff"
    )
    sqlite = Settings(home=tmp_path)
    assert sqlite.shown_database_url == sqlite.resolved_database_url


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


def test_the_worker_port_asks_for_the_token_when_one_is_set(tmp_path: Path) -> None:
    token = "worker-scrape-token-41c7"
    port = free_port()
    settings = Settings(home=tmp_path, metrics_port=port, metrics_token=token)
    server = serve_worker_metrics(settings)
    assert server is not None
    url = f"http://127.0.0.1:{port}/metrics"
    try:
        for sent in (None, "Bearer wrong", token):
            request = urllib.request.Request(url)
            if sent is not None:
                request.add_header("Authorization", sent)
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=10)
            assert refused.value.code == 401
            refused.value.close()
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert b"signoff_runs" in answer.read()
    finally:
        server.shutdown()
        server.server_close()


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


def test_the_invoke_agent_span_keeps_the_runs_trace_when_nothing_is_exported() -> None:
    # No SDK provider (the CLI without an endpoint): the start's span, inside
    # `invoke_agent`, still carries the trace the run's request names.
    hex_id = "5bf92f3577b34da6a3ce929d0e0e4736"
    with (
        run_trace(hex_id),
        invoke_agent_span(
            "support", provider="scripted", model_id="demo", tenant_id="demo", run_id="run-demo-1"
        ),
    ):
        started = trace.get_current_span().get_span_context()
    assert started.is_valid and format(started.trace_id, "032x") == hex_id


def test_a_triage_start_is_an_invoke_agent_triage_span(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from activities.store import make_engine
    from signoff.config import telemetry
    from signoff.service.handles import Store
    from signoff.service.triage_start import triage_request, triage_trace

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(telemetry, "tracer", lambda: provider.get_tracer("test"))
    engine = make_engine(f"sqlite:///{tmp_path / 'catalogs.db'}")
    request = triage_request(Settings(home=tmp_path), Store(engine), "demo", "T-1042", "req-1")
    engine.dispose()
    with triage_trace(request):
        pass
    [span] = exporter.get_finished_spans()
    assert span.name == "invoke_agent triage"
    assert span.context is not None and format(span.context.trace_id, "032x") == request.trace_id
    assert dict(span.attributes or {})["signoff.run_id"] == "triage-demo-req-1"
    assert dict(span.attributes or {})["gen_ai.operation.name"] == "invoke_agent"
