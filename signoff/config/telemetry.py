"""Tracing and Temporal's own metrics, set up from `Settings` once per process.

Design note. Every Temporal client carries `temporalio.contrib.opentelemetry`'s
`TracingInterceptor`, and a worker inherits it from its client: starting a run opens
the `StartWorkflow:AgentRun` span, and the workflow's and activities' spans follow it
through Temporal's headers, so one run is one trace. The interceptor makes the
workflow's spans itself, replay-safe; our own spans (model turn, tool call, approval
wait, refund) are opened by the activities (`activities/observe.py`), never by workflow
code. Without `OTEL_EXPORTER_OTLP_ENDPOINT` the global tracer provider stays the
no-op one: spans cost next to nothing and go nowhere. The OTLP exporter and the SDK
are imported only when that variable is set.

Temporal's SDK metrics (workflow task latency, activity schedule-to-start, poller
counts...) come from its Rust core, which serves them itself on
`SIGNOFF_TEMPORAL_METRICS_PORT` when a worker asks for that runtime: beside ours, on its
own port, since the core owns that listener.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, TraceFlags
from temporalio.client import Interceptor
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig

from signoff.config.metrics_port import MetricsPortUnavailable
from signoff.config.settings import Settings
from signoff.models.registry import known_providers

TRACER_NAME = "signoff"
HEX_TRACE_ID = re.compile(r"[0-9a-f]{32}")
logger = logging.getLogger(__name__)


def tracer() -> trace.Tracer:
    """The tracer of our own spans: the global provider's, whatever it is when called."""
    return trace.get_tracer(TRACER_NAME)


class _ProviderSystemNames(Mapping[str, str]):
    """`gen_ai.provider.name` by provider, as each provider declares it in the registry
    (signoff/models): the GenAI conventions' name where there is one, ours otherwise. A
    provider that declares none is named as itself, so no provider is ever missing."""

    def __getitem__(self, provider: str) -> str:
        declared = known_providers().get(provider)
        return provider if declared is None else declared.system_name

    def __iter__(self) -> Iterator[str]:
        return iter(known_providers())

    def __len__(self) -> int:
        return len(known_providers())


GEN_AI_PROVIDER_NAMES: Mapping[str, str] = _ProviderSystemNames()


@contextmanager
def invoke_agent_span(
    agent: str, *, provider: str, model_id: str, tenant_id: str, run_id: str
) -> Iterator[None]:
    """`invoke_agent {agent}`, the GenAI conventions' span of an agent's invocation, around
    the start of a run (inside `run_trace`).

    The invocation is asynchronous: the span ends once Temporal holds the run, and the
    run itself, which may wait days for a reviewer across workers and replays, is its
    descendant (the interceptor's `StartWorkflow` span is its child). No code holds a
    span open over the run."""
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": agent,
        "gen_ai.provider.name": GEN_AI_PROVIDER_NAMES[provider],
        "gen_ai.request.model": model_id,
        "signoff.tenant": tenant_id,
        "signoff.run_id": run_id,
    }
    with tracer().start_as_current_span(
        f"invoke_agent {agent}", kind=SpanKind.CLIENT, attributes=attributes
    ):
        yield


@contextmanager
def run_trace(trace_id: str) -> Iterator[None]:
    """Start a run inside this: the run's trace is the one its request names.

    The request's `trace_id` (32 hex digits from `new_run_request`; anything else is
    hashed into such) becomes the trace id of a parent span that is never exported, and
    the interceptor's `StartWorkflow` span is its child, recorded or not. So every span
    of the run shares that id even when the starter exports nothing (the CLI without an
    endpoint): without a valid parent, the interceptor would make no workflow spans and
    each activity would start a trace of its own. A second start of the same request
    names the same trace.
    """
    digest = hashlib.sha256(trace_id.encode()).hexdigest()
    number = int(trace_id, 16) if HEX_TRACE_ID.fullmatch(trace_id) else int(digest[:32], 16)
    context = SpanContext(
        trace_id=number or 1,
        span_id=int(digest[32:48], 16) or 1,
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
    )
    with trace.use_span(NonRecordingSpan(context), end_on_exit=False):
        yield


def client_interceptors() -> list[Interceptor]:
    """What every Temporal client carries (and hands on to the workers built on it)."""
    # Imported here: the contrib package loads the OpenTelemetry SDK, which a command
    # that never connects (`signoff --help`) should not pay for.
    from temporalio.contrib.opentelemetry import TracingInterceptor

    return [TracingInterceptor()]


def configure_tracing(settings: Settings, service: str) -> bool:
    """Export spans over OTLP/HTTP when an endpoint is set; True if it was set up."""
    if not settings.otlp_endpoint:
        return False
    return _install_otlp(f"signoff-{service}")


@lru_cache(maxsize=1)
def _install_otlp(service_name: str) -> bool:
    # Imported here: a process without an endpoint never loads the SDK or the exporter.
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, when set, win over this name.
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: service_name}))
    # The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and _HEADERS, _TIMEOUT...) itself.
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    logger.info("tracing: spans go to the OTLP endpoint as %s", service_name)
    return True


def worker_runtime(settings: Settings) -> Runtime | None:
    """A Temporal runtime serving the SDK's Prometheus metrics, or None (the default one);
    MetricsPortUnavailable when the core cannot bind its port."""
    host, port = settings.metrics_host, settings.temporal_metrics_port
    if port is None:
        return None
    try:
        return _prometheus_runtime(f"{host}:{port}")
    except ValueError as error:  # the core's "Failed starting Prometheus exporter: ..."
        raise MetricsPortUnavailable(
            "Temporal's metrics", host, port, "SIGNOFF_TEMPORAL_METRICS_PORT", error
        ) from None


@lru_cache(maxsize=4)
def _prometheus_runtime(bind_address: str) -> Runtime:
    # One per address for the process: the core binds the port when the runtime is made.
    return Runtime(telemetry=TelemetryConfig(metrics=PrometheusConfig(bind_address=bind_address)))
