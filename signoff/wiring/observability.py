"""What a signoff process turns on at its start: logs, traces, and the worker's /metrics.

Called by `signoff worker`, `signoff ui` and `signoff dev` before they connect (see
docs/operating/observability.md). The settings decide everything: JSON or text logs,
OTLP export or none, a metrics port or none.
"""

from __future__ import annotations

from typing import Literal
from wsgiref.simple_server import WSGIServer

from signoff.config.logs import configure_logging
from signoff.config.metrics_port import MetricsPortUnavailable
from signoff.config.settings import Settings
from signoff.config.telemetry import configure_tracing

Process = Literal["worker", "ui", "dev"]


def start_observability(settings: Settings, process: Process) -> None:
    configure_logging(settings)
    configure_tracing(settings, process)
    if process != "ui":
        serve_worker_metrics(settings)


def serve_worker_metrics(settings: Settings) -> WSGIServer | None:
    """Serve our Prometheus registry on SIGNOFF_METRICS_PORT (a daemon thread), asking
    for SIGNOFF_METRICS_TOKEN when it is set, or None when the port is unset. The UI
    serves the same registry on its own `/metrics` route, always behind the token."""
    if settings.metrics_port is None:
        return None
    from signoff.wiring.metrics_server import start_metrics_server  # only when asked for

    token = settings.metrics_token
    host, port = settings.metrics_host, settings.metrics_port
    try:
        return start_metrics_server(
            host, port, token.get_secret_value() if token is not None else None
        )
    except OSError as error:  # taken, or an address it cannot bind
        raise MetricsPortUnavailable(
            "/metrics", host, port, "SIGNOFF_METRICS_PORT", error.strerror or error
        ) from None
