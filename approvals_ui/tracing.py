"""A span per HTTP request of the reviewer UI (OpenTelemetry's FastAPI instrumentation).

The spans go where the process's tracer provider sends them (signoff/config/telemetry.py:
OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, nowhere otherwise). A decision sent from
the UI starts Temporal's update span inside the request's span, so the trace shows the
reviewer's click down to the worker's `decide`. Static files and the scrape of
`/metrics` make no spans, nor a run page's live stream. No request body is ever
recorded, and so no form field (a password, a reason) either.
"""

from __future__ import annotations

from fastapi import FastAPI

# A run page's live stream lasts minutes: a span per stream (and one per message) would
# say nothing a trace reader needs.
UNTRACED_PATHS = "/static/.*,/metrics,/runs/[^/]+/events"


def trace_requests(app: FastAPI) -> None:
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

    FastAPIInstrumentor.instrument_app(app, excluded_urls=UNTRACED_PATHS)
