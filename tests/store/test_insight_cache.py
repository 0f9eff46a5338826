"""The kept approval insight, on both backends: a period read once and brought up to
date with the rows appended since says exactly what a fresh read says, a late row with
an old time included and rows of another period or tenant left out; and a shadow rule's
later decision shows at once."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine

from activities.store.approval_insight import approval_insight
from activities.store.insight_cache import InsightCache
from tests.insight_rows import NOW, SINCE, UNTIL, add, known_rows


def test_a_kept_period_follows_the_appended_rows_as_a_fresh_read_does(store: Engine) -> None:
    known_rows(store)
    cache = InsightCache()
    first = cache.insight(store, "demo", SINCE, UNTIL)
    assert first == approval_insight(store, "demo", SINCE, UNTIL)
    add(store, "approved", "approved", reviewer="alice", waited_ms=5, amount_minor=300)
    # Written now, decided ten days ago: still in the period.
    add(store, "rejected", "rejected", reviewer="zoe", waited_ms=7, category="other",
        at=NOW - timedelta(days=10))  # fmt: skip
    add(store, "approved", "approved", reviewer="zoe", at=SINCE - timedelta(days=1))
    add(store, "approved", "approved", tenant="globex", reviewer="carol", amount_minor=1)
    # The shadow rule's fourth action (run-s4) is decided now: an agreement.
    add(store, "approved", "approved", tool="send_reply", reviewer="erin", run_id="run-s4")
    # A new action the rule would have approved, and frank's rejection of it.
    add(store, "rule_shadow", "rule_shadow", tool="send_reply", run_id="run-s5", rule_id="R-1")
    add(store, "rejected", "rejected", tool="send_reply", reviewer="frank", run_id="run-s5")
    kept = cache.insight(store, "demo", SINCE, UNTIL)
    assert kept == approval_insight(store, "demo", SINCE, UNTIL)
    assert kept != first
    tools = {tally.name: tally for tally in kept.tools}
    assert tools["refund"].requests == 24 + 2
    assert tools["send_reply"].requests == 4 + 2
    assert [tally.name for tally in kept.reviewers if tally.name == "zoe"] == ["zoe"]
    shadow = kept.shadows[0]
    assert (shadow.matched, shadow.compared, shadow.agreed) == (5, 4, 2)
    assert [d.run_id for d in shadow.disagreements] == ["run-s5", "run-s2"]  # newest first
    assert cache.insight(store, "demo", SINCE, UNTIL) == kept  # nothing new: the same


def test_only_a_few_periods_are_kept(store: Engine) -> None:
    known_rows(store)
    cache = InsightCache(size=2)
    for days in (1, 2, 3):
        cache.insight(store, "demo", NOW - timedelta(days=days), UNTIL)
    assert len(cache._kept) == 2
