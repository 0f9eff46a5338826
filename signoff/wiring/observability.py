"""What a signoff process turns on at its start: logs, traces, and the worker's /metrics.

Called by `signoff worker`, `signoff ui` and `signoff dev` before they connect (see
README, "Operating signoff"). The settings decide everything: JSON or text logs,
OTLP export or none, a metrics port or none.
"""

from __future__ import annotations

from typing import Literal
from wsgiref.simple_server import WSGIServer

from signoff.config.logs import configure_logging
from signoff.config.settings import Settings
from signoff.config.telemetry import configure_tracing

Process = Literal["worker", "ui", "dev"]


def start_observability(settings: Settings, process: Process) -> None:
    configure_logging(settings)
    configure_tracing(settings, process)
    if process != "ui":
        serve_worker_metrics(settings)


def serve_worker_metrics(settings: Settings) -> WSGIServer | None:
    """Serve our Prometheus registry on SIGNOFF_METRICS_PORT (a daemon thread), or None
    when it is unset. The UI serves the same registry on its own `/metrics` route."""
    if settings.metrics_port is None:
        return None
    from prometheus_client import start_http_server  # only when asked for

    server, _ = start_http_server(settings.metrics_port, addr=settings.metrics_host)
    return server
