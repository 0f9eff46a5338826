"""What a period's audit rows add up to, for the approval insight: its whole UTC days
read from their rows in `insight_days` (insight_days.py), and the rest from the audit's
covering index: a part day at either end, and a day with no row yet.

Design note. A day gets its row from the audit's writer when a row of it is appended;
a past day with none (one written before revision 0014_insight_days, or a day with no
decision) gets it here, at the first view of a period that holds it: summed once from
the audit under the tenant's chain lock, like an append, so that no append adds to the
day meanwhile. A day that has not begun yet is read from the audit (it is empty unless
a row was dated ahead) and gets its row from its first append.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import Connection, Engine, select
from sqlalchemy.exc import IntegrityError

from activities.store.database import use_session, write_transaction
from activities.store.decisions import CHAIN_HEAD, CHAIN_LOCK
from activities.store.insight_days import (
    DAYS,
    ONE_DAY,
    add_summary,
    audit_scan,
    day_of,
    start_of,
    write_day,
)
from activities.store.insight_scan import Scanned

Range = tuple[datetime, datetime]


def whole_days(since: datetime, until: datetime) -> list[date]:
    """The UTC days that lie wholly in [since, until)."""
    first, end = day_of(since), day_of(until)
    if start_of(first) < since:
        first += ONE_DAY
    return [first + ONE_DAY * offset for offset in range((end - first).days)]


def _stored(connection: Connection, tenant_ids: Sequence[str], days: list[date]) -> Any:
    return connection.execute(
        select(DAYS.c.tenant_id, DAYS.c.day, DAYS.c.head_seq, DAYS.c.summary).where(
            DAYS.c.tenant_id.in_(tenant_ids), DAYS.c.day >= days[0], DAYS.c.day <= days[-1]
        )
    )


def roll_up(engine: Engine, tenant_ids: Sequence[str], days: list[date], now: datetime) -> int:
    """Write the row of each of the tenants' `days` begun by `now` that has none; returns
    how many were written."""
    begun = [day for day in days if start_of(day) <= now]
    if not begun or not tenant_ids:
        return 0
    with use_session(engine) as session:
        query = select(DAYS.c.tenant_id, DAYS.c.day).where(
            DAYS.c.tenant_id.in_(tenant_ids), DAYS.c.day >= begun[0], DAYS.c.day <= begun[-1]
        )
        have = {(tenant, day) for tenant, day in session.execute(query)}
    missing = [(tenant, day) for tenant in tenant_ids for day in begun if (tenant, day) not in have]
    if not missing:
        return 0
    try:
        return _write_days(engine, missing, begun)
    except IntegrityError:
        # An append wrote one of the days meanwhile (on PostgreSQL under REPEATABLE READ
        # our snapshot may not see it): nothing is lost, a day with no row is read from
        # the audit, and the next view rolls up what is still missing.
        return 0


def _write_days(engine: Engine, missing: list[tuple[str, date]], begun: list[date]) -> int:
    written = 0
    with write_transaction(engine) as session:
        connection = session.connection()
        for tenant in sorted({tenant for tenant, _ in missing}):  # locks in one order
            connection.execute(CHAIN_LOCK, {"tenant_id": tenant})
            head = connection.execute(CHAIN_HEAD, {"tenant_id": tenant}).one_or_none()
            since_read = {day for _, day, _, _ in _stored(connection, [tenant], begun)}
            for day in begun:
                if day not in since_read:  # an append may have written it since
                    write_day(connection, tenant, day, 0 if head is None else head[0])
                    written += 1
    return written


def period_scan(
    connection: Connection,
    tenant_ids: Sequence[str],
    since: datetime,
    until: datetime,
    head: int | None = None,
) -> tuple[Scanned, int | None]:
    """The period's rows added up. With `head` (the chain's, read before), the rows at or
    below the highest of it and the days' heads, and that bound: every row of the period
    at or below it is counted, none above it (insight_days.py says why)."""
    days = whole_days(since, until)
    scanned = Scanned()
    stored: set[tuple[str, date]] = set()
    highest = 0
    if days:
        for tenant, day, day_head, summary in _stored(connection, tenant_ids, days):
            add_summary(summary, scanned)
            stored.add((tenant, day))
            highest = max(highest, day_head)
    bound = None if head is None else max(head, highest)
    # Tenants with the same ranges left are read together (the fleet's metrics).
    left: defaultdict[tuple[Range, ...], list[str]] = defaultdict(list)
    for tenant in tenant_ids:
        ranges = _ranges(since, until, [day for day in days if (tenant, day) not in stored])
        left[tuple(ranges)].append(tenant)
    for left_ranges, tenants in left.items():
        audit_scan(connection, tenants, left_ranges, bound, into=scanned)
    scanned.sort_waits()
    return scanned, bound


def _ranges(since: datetime, until: datetime, unread: list[date]) -> list[Range]:
    """The part days at the ends and the whole days not read, joined where they touch."""
    days = whole_days(since, until)
    if not days:
        return [(since, until)]
    ranges = [(since, start_of(days[0])), *((start_of(d), start_of(d + ONE_DAY)) for d in unread)]
    ranges.append((start_of(days[-1] + ONE_DAY), until))
    joined: list[Range] = []
    for begin, end in ranges:
        if begin >= end:
            continue
        if joined and joined[-1][1] == begin:
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((begin, end))
    return joined
