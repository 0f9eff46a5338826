"""The insight's SVG geometry: a tally's outcomes fill its bar in the legend's order, in
proportion, with no part for an outcome it has none of; the waits' bars are shares of the
longest p95; and the CSV's rows carry every figure in plain numbers."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

from approvals_ui.insight import csv_rows
from approvals_ui.insight_charts import WIDTH, outcome_segments, wait_bars
from signoff.service.approval_insight import Insight, Tally


def test_the_outcomes_fill_the_bar_in_proportion_and_in_order() -> None:
    tally = Tally("refund", requests=8, approved=4, rejected=Counter({"other": 2}), expired=2)
    segments = outcome_segments(tally)
    assert [(s.key, s.x, s.width) for s in segments] == [
        ("approved", 0, 50.0),
        ("rejected", 50.0, 25.0),
        ("expired", 75.0, 25.0),
    ]
    assert sum(segment.width for segment in segments) == WIDTH
    assert outcome_segments(Tally("none")) == []


def test_the_waits_are_shares_of_the_longest_p95() -> None:
    fast = Tally("alice", p50_ms=1_000, p95_ms=2_000)
    slow = Tally("bob", p50_ms=4_000, p95_ms=8_000)
    bars = wait_bars([fast, slow, Tally("never decided")])
    assert [(b.name, b.p50_width, b.p95_width) for b in bars] == [
        ("alice", 12.5, 25.0),
        ("bob", 50.0, 100.0),
    ]


def test_the_csv_rows_say_amounts_waits_and_shares_as_numbers() -> None:
    total = Tally(
        "", requests=4, approved=3, by_rule=1, money_approved=Counter({"EUR": 123_450}),
        p50_ms=61_400, p95_ms=None,
    )  # fmt: skip
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    insight = Insight("demo", moment, moment, total, [], [], {"EUR": 500}, [])
    rows = {row[:4]: row[4] for row in csv_rows(insight)}
    assert rows["tenant", "demo", "money_approved", "EUR"] == "1234.50"
    assert rows["tenant", "demo", "money_refunded", "EUR"] == "5.00"
    assert rows["tenant", "demo", "p50_seconds", ""] == "61"
    assert rows["tenant", "demo", "p95_seconds", ""] == ""
    assert rows["tenant", "demo", "rule_share", ""] == "0.25"
