"""The approval insight as Prometheus gauges: the figures of the page (/insight) over the
last INSIGHT_WINDOW_DAYS, for every tenant together, and how long the oldest request of
any tool has waited.

Read in the background with the store's other gauges (metrics.StoreGauges.refresh),
never by a scrape. Labels follow the rule of metrics.py: a tool, an outcome, a rejection
category, a currency, a standing rule's id; never a tenant, a reviewer or a run, so the
per-reviewer figures stay on the page and in its CSV. Money is a float here, at the edge.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from prometheus_client.core import GaugeMetricFamily
from sqlalchemy import Engine

from activities.store.approval_insight import fleet_insight, oldest_waiting
from activities.store.insight_figures import Insight

# The page's default period (approvals_ui/insight.py), so that both say the same.
INSIGHT_WINDOW_DAYS = 30
CENTS_PER_UNIT = 100
MILLISECONDS = 1000
QUANTILES = (("0.5", "p50_ms"), ("0.95", "p95_ms"))


@dataclass(frozen=True)
class InsightReading:
    insight: Insight
    oldest_waiting: datetime | None
    at: datetime


def read_insight(engine: Engine, now: datetime) -> InsightReading:
    since = now - timedelta(days=INSIGHT_WINDOW_DAYS)
    return InsightReading(fleet_insight(engine, since, now), oldest_waiting(engine, now), now)


def insight_families(
    reading: InsightReading, clock: Callable[[], datetime]
) -> Iterator[GaugeMetricFamily]:
    insight = reading.insight
    window = f"in the last {INSIGHT_WINDOW_DAYS} days"
    requests = GaugeMetricFamily(
        "signoff_insight_requests",
        f"Requests that ended {window}, by tool and outcome (approved, edited, rejected, "
        "expired, rule_approved).",
        labels=["tool", "outcome"],
    )
    rejections = GaugeMetricFamily(
        "signoff_insight_rejections",
        f"Rejected requests {window}, by tool and category.",
        labels=["tool", "category"],
    )
    waits = GaugeMetricFamily(
        "signoff_insight_decision_seconds",
        f"Time from request to a reviewer's decision {window}, by tool: p50 and p95.",
        labels=["tool", "quantile"],
    )
    money = GaugeMetricFamily(
        "signoff_insight_money_approved",
        f"Money approved {window} (by reviewers and standing rules), by tool and currency.",
        labels=["tool", "currency"],
    )
    share = GaugeMetricFamily(
        "signoff_insight_rule_share",
        f"Share of requests a standing rule decided {window}, by tool (0 to 1).",
        labels=["tool"],
    )
    for tally in insight.tools:
        for outcome, count in (
            ("approved", tally.approved),
            ("edited", tally.edited),
            ("rejected", tally.rejected_total),
            ("expired", tally.expired),
            ("rule_approved", tally.by_rule),
        ):
            requests.add_metric([tally.name, outcome], count)
        for category, count in sorted(tally.rejected.items()):
            rejections.add_metric([tally.name, category], count)
        for quantile, field in QUANTILES:
            milliseconds = getattr(tally, field)
            if milliseconds is not None:
                waits.add_metric([tally.name, quantile], milliseconds / MILLISECONDS)
        for currency, minor in sorted(tally.money_approved.items()):
            money.add_metric([tally.name, currency], minor / CENTS_PER_UNIT)
        if tally.rule_share is not None:
            share.add_metric([tally.name], tally.rule_share)
    yield from (requests, rejections, waits, money, share)
    refunded = GaugeMetricFamily(
        "signoff_insight_money_refunded",
        f"Money refunded {window}, by currency.",
        labels=["currency"],
    )
    for currency, minor in sorted(insight.refunded.items()):
        refunded.add_metric([currency], minor / CENTS_PER_UNIT)
    yield refunded
    yield from _shadow_families(insight, window)
    age = 0.0
    if reading.oldest_waiting is not None:
        age = max(0.0, (clock() - reading.oldest_waiting).total_seconds())
    yield GaugeMetricFamily(
        "signoff_oldest_waiting_request_age_seconds",
        "How long the oldest request of any tool still waiting for a reviewer has waited "
        "(0 when none waits).",
        value=age,
    )


def _shadow_families(insight: Insight, window: str) -> Iterator[GaugeMetricFamily]:
    compared = GaugeMetricFamily(
        "signoff_insight_shadow_compared",
        f"Requests a shadow rule would have approved and a reviewer decided {window}.",
        labels=["rule"],
    )
    disagreed = GaugeMetricFamily(
        "signoff_insight_shadow_disagreements",
        f"Of those, the ones the reviewer edited or rejected {window}.",
        labels=["rule"],
    )
    agreement = GaugeMetricFamily(
        "signoff_insight_shadow_agreement",
        f"Share of those the reviewer approved as the rule would have {window} (0 to 1).",
        labels=["rule"],
    )
    for check in insight.shadows:
        compared.add_metric([check.rule_id], check.compared)
        disagreed.add_metric([check.rule_id], check.disagreed)
        if check.agreement is not None:
            agreement.add_metric([check.rule_id], check.agreement)
    yield from (compared, disagreed, agreement)
