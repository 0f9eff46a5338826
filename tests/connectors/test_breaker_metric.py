"""The breakers' Prometheus gauge: read from the store at a refresh (never at a scrape),
one series per connector, 2 while open, 1 once half-open, 0 when closed again."""

from __future__ import annotations

from datetime import timedelta

from prometheus_client import CollectorRegistry, generate_latest
from sqlalchemy import Engine

from activities.metrics import StoreGauges
from activities.store.connector_breakers import record_failure, record_success
from tests.connectors.replies import POLICY, MovableClock


def sample(registry: CollectorRegistry, connector: str) -> float | None:
    value = registry.get_sample_value("signoff_connector_breaker_state", {"connector": connector})
    return value


def test_the_gauge_follows_the_breaker_in_the_store(seeded_engine: Engine) -> None:
    clock = MovableClock()
    gauges = StoreGauges(seeded_engine, clock=clock)
    registry = CollectorRegistry()
    registry.register(gauges)
    gauges.refresh()
    assert sample(registry, "helpdesk:demo") is None  # never failed: no series
    for _ in range(POLICY.failures_to_open):
        record_failure(seeded_engine, "helpdesk:demo", POLICY, clock(), "HTTP 503")
    assert sample(registry, "helpdesk:demo") is None  # a scrape does not read the store
    gauges.refresh()
    assert sample(registry, "helpdesk:demo") == 2
    clock.ahead = POLICY.cooldown + timedelta(seconds=1)
    assert sample(registry, "helpdesk:demo") == 1
    record_success(seeded_engine, "helpdesk:demo", clock())
    gauges.refresh()
    assert sample(registry, "helpdesk:demo") == 0
    assert b'signoff_connector_breaker_state{connector="helpdesk:demo"} 0.0' in generate_latest(
        registry
    )
