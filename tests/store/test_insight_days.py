"""The approval insight's days (insight_days.py, insight_period.py), on both backends:
each day's row is what its audit rows add up to, kept by the audit's writer; a period
read from the days says exactly what the audit's rows alone say (percentiles included,
nearest rank over every wait); a day with no row (written before revision 0014) is
summed from the audit, at its next row or at a view; part days at a period's ends count
their rows from the audit, to the second; a transaction's rows reach their day once, as
it commits, and a rolled-back one's never."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, delete, event, select, update

from activities.store.approval_insight import approval_insight, figures
from activities.store.database import use_session, write_transaction
from activities.store.decisions import append_event
from activities.store.insight_days import (
    DAYS,
    DECISIONS,
    audit_scan,
    day_of,
    decoded,
    encode,
    start_of,
)
from activities.store.insight_figures import Insight
from activities.store.insight_period import roll_up, whole_days
from activities.store.insight_scan import Scanned
from tests.insight_rows import MINUTE_MS, NOW, add
from tests.insight_rows import event as row_event

TODAY = day_of(NOW)
ONE = timedelta(days=1)
MIDDAY = timedelta(hours=12)
# Longer than 2**31 ms (24.8 days): a wait that would not fit 32 bits.
MONTH_MS = 30 * 24 * 60 * MINUTE_MS


def at(days_ago: int, offset: timedelta = MIDDAY) -> datetime:
    return start_of(TODAY - timedelta(days=days_ago)) + offset


def several_days(store: Engine) -> None:
    """A week of decisions: each day its own reviewers, tools, waits, money and ends."""
    for days_ago in range(1, 6):
        when = at(days_ago)
        for minutes in range(1, 5):
            add(store, "approved", "approved", reviewer="alice", amount_minor=100 * minutes,
                waited_ms=(days_ago * 10 + minutes) * MINUTE_MS, at=when)  # fmt: skip
        add(store, "rejected", "rejected", tool="goodwill", reviewer="bob",
            category="wrong_amount", waited_ms=days_ago * MINUTE_MS, at=when)  # fmt: skip
        add(store, "first_approval", "approved", reviewer="carol", amount_minor=700,
            waited_ms=days_ago, at=when)  # fmt: skip
        add(store, "expired", "expired", tool="send_reply", at=when)
        add(store, "rule_approved", "rule_approved", reviewer="admin", amount_minor=50,
            rule_id="R-2", at=when)  # fmt: skip
        add(store, "executed", "refunded", tool=None, amount_minor=400, at=when)
        run = f"run-shadow-{days_ago}"
        add(store, "rule_shadow", "rule_shadow", tool="send_reply", run_id=run, rule_id="R-1",
            at=when)  # fmt: skip
        end = "approved" if days_ago % 2 else "rejected"
        add(store, end, end, tool="send_reply", reviewer="erin", run_id=run,
            waited_ms=MONTH_MS + days_ago, at=when + timedelta(minutes=5))  # fmt: skip
    add(store, "refused", None, reviewer="alice", at=at(2))  # ends no request


def from_the_audit(store: Engine, since: datetime, until: datetime) -> Insight:
    """The figures from the audit's rows alone, as the insight read them before the days."""
    with use_session(store) as session:
        scanned = audit_scan(session.connection(), ["demo"], [(since, until)])
    scanned.sort_waits()
    shadows = approval_insight(store, "demo", since, until).shadows
    return figures(scanned, ["demo"], since, until, shadows)


def stored_days(store: Engine) -> dict[date, tuple[int, str]]:
    query = select(DAYS.c.day, DAYS.c.head_seq, DAYS.c.summary).where(DAYS.c.tenant_id == "demo")
    with use_session(store) as session:
        return {day: (head, summary) for day, head, summary in session.execute(query)}


def same(one: Scanned, other: Scanned) -> bool:
    return (
        one.counts == other.counts
        and +one.sums == +other.sums
        and one.reviewer_counts == other.reviewer_counts
        and +one.reviewer_sums == +other.reviewer_sums
        and dict(one.tool_waits) == dict(other.tool_waits)
        and dict(one.reviewer_waits) == dict(other.reviewer_waits)
        and one.all_waits == other.all_waits
    )


def test_each_days_row_is_what_its_audit_rows_add_up_to(store: Engine) -> None:
    several_days(store)
    days = stored_days(store)
    assert set(days) == {TODAY - timedelta(days=n) for n in range(1, 6)}
    with use_session(store) as session:
        connection = session.connection()
        for day, (head, summary) in days.items():
            audit = audit_scan(connection, ["demo"], [(start_of(day), start_of(day + ONE))])
            audit.sort_waits()
            assert same(decoded(summary), audit), day
            last = select(DECISIONS.c.seq).where(
                DECISIONS.c.decided_at >= start_of(day),
                DECISIONS.c.decided_at < start_of(day + ONE),
                DECISIONS.c.outcome.is_not(None),
            )
            assert head == max(connection.execute(last).scalars())


def test_a_period_of_days_says_what_the_audit_alone_says(store: Engine) -> None:
    several_days(store)
    for since, until in (
        (start_of(TODAY - timedelta(days=6)), start_of(TODAY + ONE)),  # whole days
        (at(4, timedelta(hours=3)), at(1, timedelta(hours=13))),  # part days at both ends
        (at(3, timedelta(hours=1)), at(3, timedelta(hours=23))),  # within one day
    ):
        insight = approval_insight(store, "demo", since, until)
        assert insight == from_the_audit(store, since, until)
    whole = approval_insight(store, "demo", start_of(TODAY - timedelta(days=6)), NOW)
    alice = next(tally for tally in whole.reviewers if tally.name == "alice")
    # Nearest rank over alice's 20 waits of five days: the 10th and the 19th shortest.
    waits = sorted((n * 10 + minutes) * MINUTE_MS for n in range(1, 6) for minutes in range(1, 5))
    assert (alice.p50_ms, alice.p95_ms) == (waits[9], waits[18])
    erin = next(tally for tally in whole.reviewers if tally.name == "erin")
    assert erin.p95_ms == MONTH_MS + 5  # past 32 bits, kept whole


def test_a_part_day_counts_its_rows_to_the_second(store: Engine) -> None:
    since, until = at(2, timedelta(hours=10)), at(1, timedelta(hours=10))
    for moment in (since - timedelta(seconds=1), since, until - timedelta(seconds=1), until):
        add(store, "approved", "approved", reviewer="alice", waited_ms=1, at=moment)
    insight = approval_insight(store, "demo", since, until)
    assert insight.total.approved == 2


def test_a_day_without_its_row_is_summed_from_the_audit(store: Engine) -> None:
    several_days(store)
    with write_transaction(store) as session:  # as a store before 0014 was
        session.execute(delete(DAYS))
    # A new row on a day whose older rows have no day's row: the day holds them all.
    add(store, "approved", "approved", reviewer="zoe", waited_ms=3, at=at(3, timedelta(hours=20)))
    days = stored_days(store)
    assert list(days) == [TODAY - timedelta(days=3)]
    three_days_ago = decoded(days[TODAY - timedelta(days=3)][1])
    assert sum(three_days_ago.counts.values()) == 11 + 1
    # A view rolls up each past day of its period with no row, once; not a day to come.
    period = whole_days(start_of(TODAY - timedelta(days=6)), start_of(TODAY + 2 * ONE))
    assert roll_up(store, ["demo"], period, NOW) == len(period) - 2
    assert roll_up(store, ["demo"], period, NOW) == 0
    assert TODAY + ONE not in stored_days(store)
    since, until = start_of(TODAY - timedelta(days=6)), start_of(TODAY + ONE)
    assert approval_insight(store, "demo", since, until) == from_the_audit(store, since, until)


def test_a_whole_day_is_read_from_its_row_and_a_part_day_from_the_audit(store: Engine) -> None:
    several_days(store)
    day = TODAY - timedelta(days=2)
    with write_transaction(store) as session:  # the day's row says nothing happened
        session.execute(update(DAYS).where(DAYS.c.day == day).values(summary=encode(Scanned())))
    whole = approval_insight(store, "demo", start_of(day), start_of(day + ONE))
    assert whole.total.requests == 0
    part = approval_insight(store, "demo", start_of(day) + ONE / 4, start_of(day + ONE))
    assert part.total.requests == 4 + 4


def day_summary(store: Engine, day: date) -> tuple[int, Scanned]:
    head, summary = stored_days(store)[day]
    return head, decoded(summary)


def audit_of(store: Engine, day: date) -> Scanned:
    with use_session(store) as session:
        audit = audit_scan(session.connection(), ["demo"], [(start_of(day), start_of(day + ONE))])
    audit.sort_waits()
    return audit


def test_a_transactions_rows_reach_their_day_once_and_whole(store: Engine) -> None:
    """A refund's approval and its `executed` row, or a batch of decisions, commit in one
    transaction: their day's summary is read and rewritten once, with all of them."""
    add(store, "approved", "approved", reviewer="alice", waited_ms=MINUTE_MS, at=at(1))
    rewrites: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("UPDATE INSIGHT_DAYS"):
            rewrites.append(statement)

    event.listen(store, "before_cursor_execute", count)
    try:
        with write_transaction(store) as session:
            approved = append_event(
                session,
                row_event(
                    "approved",
                    "approved",
                    reviewer="bob",
                    waited_ms=2 * MINUTE_MS,
                    amount_minor=900,
                    at=at(1),
                ),  # fmt: skip
            )
            executed = append_event(
                session, row_event("executed", "refunded", tool=None, amount_minor=900, at=at(1))
            )
    finally:
        event.remove(store, "before_cursor_execute", count)

    assert len(rewrites) == 1
    head, summary = day_summary(store, TODAY - ONE)
    assert head == max(approved.seq, executed.seq)
    assert same(summary, audit_of(store, TODAY - ONE))


def test_a_rolled_back_append_adds_nothing_to_its_day(store: Engine) -> None:
    add(store, "approved", "approved", reviewer="alice", waited_ms=MINUTE_MS, at=at(1))
    before = stored_days(store)[TODAY - ONE]

    with pytest.raises(RuntimeError), write_transaction(store) as session:
        append_event(session, row_event("rejected", "rejected", reviewer="bob", at=at(1)))
        raise RuntimeError("the caller fails after its append: nothing of it commits")
    assert stored_days(store)[TODAY - ONE] == before

    add(store, "expired", "expired", at=at(1))
    head, summary = day_summary(store, TODAY - ONE)
    assert summary.counts[("refund", None, "expired", "expired", None, None)] == 1
    assert same(summary, audit_of(store, TODAY - ONE))
