"""The metrics every face shares: sign-in failures, the store's pending gauges, and
the Prometheus exposition of the process's registry (the UI's `/metrics`).

The worker's own metrics (runs, model turns, tools, refunds, decisions) live in
`activities/metrics.py` and are recorded by the activities; in `signoff dev`, where
the worker and the UI share a process, the UI's `/metrics` shows them too.
"""

from __future__ import annotations

from typing import Literal

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, generate_latest
from sqlalchemy import Engine

from activities.metrics import register_store_gauges

SignInFailure = Literal["wrong_credentials", "rate_limited", "disabled", "bad_token"]

SIGNIN_FAILURES = Counter(
    "signoff_signin_failures",
    "Refused sign-ins to the reviewer UI and its API, by reason.",
    ["reason"],
)


def signin_failed(reason: SignInFailure) -> None:
    SIGNIN_FAILURES.labels(reason).inc()


def watch_store(engine: Engine) -> None:
    """Pending refunds and the oldest one's age, read from this store at each scrape."""
    register_store_gauges(engine)


def exposition() -> tuple[bytes, str]:
    """The registry in Prometheus' text format, and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
