"""The metrics every face shares: sign-in failures, the store's pending gauges, and
the Prometheus exposition of the process's registry (the UI's `/metrics`), for a
scraper that shows SIGNOFF_METRICS_TOKEN.

The worker's own metrics (runs, model turns, tools, refunds, decisions) live in
`activities/metrics.py` and are recorded by the activities; in `signoff dev`, where
the worker and the UI share a process, the UI's `/metrics` shows them too.
"""

from __future__ import annotations

import asyncio
import hmac
from typing import Literal

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, generate_latest

from activities.metrics import StoreGauges, keep_fresh, register_store_gauges
from signoff.service.handles import Store, engine_of

SignInFailure = Literal["wrong_credentials", "rate_limited", "disabled", "bad_token"]

SIGNIN_FAILURES = Counter(
    "signoff_signin_failures",
    "Refused sign-ins to the reviewer UI and its API, by reason.",
    ["reason"],
)


def signin_failed(reason: SignInFailure) -> None:
    SIGNIN_FAILURES.labels(reason).inc()


def watch_store(store: Store) -> StoreGauges:
    """Pending refunds and the oldest one's age, read from this store: once now, then
    by `refresh_in_background`, never by a scrape."""
    engine = engine_of(store)
    gauges = register_store_gauges(engine)
    gauges.refresh()
    return gauges


def refresh_in_background(gauges: StoreGauges, interval_seconds: float) -> asyncio.Task[None]:
    """The refresh loop, a task of the running event loop; the caller cancels it."""
    return asyncio.create_task(keep_fresh(gauges, interval_seconds))


def scrape_allowed(authorization: str | None, token: str | None) -> bool:
    """`Authorization: Bearer <SIGNOFF_METRICS_TOKEN>`; no token configured: nobody."""
    if token is None or authorization is None:
        return False
    scheme, _, sent = authorization.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(sent.strip().encode(), token.encode())


def exposition() -> tuple[bytes, str]:
    """The registry in Prometheus' text format, and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
