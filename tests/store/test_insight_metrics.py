"""The approval insight's Prometheus gauges, from known audit rows on both backends: the
page's figures per tool for every tenant together (no tenant or reviewer label), the
shadow rule's agreement, the money refunded, and the age of the oldest waiting request
of any tool; read at a refresh, never at a scrape, and at most once a minute."""

from __future__ import annotations

from datetime import datetime, timedelta

from prometheus_client import CollectorRegistry, generate_latest
from sqlalchemy import Engine

from activities.metrics import StoreGauges
from activities.store.waiting_actions import hold_waiting
from tests.insight_rows import NOW, add, known_rows
from tests.store.test_waiting_actions import an_action
from workflows.actions import ActionHold


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def gauges_of(store: Engine, clock: Clock) -> tuple[StoreGauges, CollectorRegistry]:
    gauges = StoreGauges(store, clock=clock)
    registry = CollectorRegistry()
    registry.register(gauges)
    return gauges, registry


def test_the_gauges_say_the_pages_figures_for_the_fleet(store: Engine) -> None:
    known_rows(store)
    clock = Clock(NOW + timedelta(seconds=1))
    gauges, registry = gauges_of(store, clock)
    value = registry.get_sample_value
    assert value("signoff_insight_requests", {"tool": "refund", "outcome": "approved"}) is None
    gauges.refresh()
    # demo's 20 and globex's 1: the metrics name no tenant, they count the fleet.
    assert value("signoff_insight_requests", {"tool": "refund", "outcome": "approved"}) == 21
    assert value("signoff_insight_requests", {"tool": "refund", "outcome": "rule_approved"}) == 1
    assert value("signoff_insight_rejections", {"tool": "refund", "category": "wrong_amount"}) == 1
    assert value("signoff_insight_decision_seconds", {"tool": "refund", "quantile": "0.95"}) == (
        19 * 60
    )
    assert value("signoff_insight_money_approved", {"tool": "refund", "currency": "EUR"}) == (
        200.00 + 5.00 + 999.99
    )
    assert value("signoff_insight_money_refunded", {"currency": "EUR"}) == 10.00
    assert value("signoff_insight_shadow_agreement", {"rule": "R-1"}) == 0.5
    assert value("signoff_insight_shadow_disagreements", {"rule": "R-1"}) == 1
    exposition = generate_latest(registry).decode()
    assert "alice" not in exposition and "demo" not in exposition and "globex" not in exposition


def test_the_insight_is_read_again_after_a_minute_and_says_the_oldest_wait(
    store: Engine,
) -> None:
    clock = Clock(NOW + timedelta(seconds=1))
    gauges, registry = gauges_of(store, clock)
    gauges.refresh()
    value = registry.get_sample_value
    assert value("signoff_oldest_waiting_request_age_seconds") == 0
    reply = an_action(store, "b" * 64, 1000).model_copy(
        update={"tool": "send_reply", "exposure": None}
    )
    hold_waiting(
        store, ActionHold(run_id="run-o", tenant_id="demo", ticket_id="T-3107", action=reply), NOW
    )
    add(store, "approved", "approved", reviewer="alice", waited_ms=1000, amount_minor=100)
    gauges.refresh()  # within the minute: the last reading stays
    assert value("signoff_insight_requests", {"tool": "refund", "outcome": "approved"}) is None
    clock.now += timedelta(minutes=1)
    gauges.refresh()
    assert value("signoff_insight_requests", {"tool": "refund", "outcome": "approved"}) == 1
    assert value("signoff_oldest_waiting_request_age_seconds") == 61
