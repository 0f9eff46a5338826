"""The approval insight's days: what each UTC day of a tenant's audit adds up to (its
rows' counts and sums, and every wait, sorted), kept in `insight_days` as the audit is
written, so that a period's first view reads one row a day instead of every audit row.

Design note. The audit only grows, and a day's figures are a sum over its rows, except
the percentiles, which need every wait: a day's row keeps them all (a busy tenant's day
of 2,700 decisions is some 40 kB of JSON), so that a period's percentiles stay exact
(nearest rank over the period's waits, as insight_scan.percentiles takes them), not read
from buckets. `add_row_at_commit` adds each audit row with an outcome to its day in the
append's own transaction, as it commits, under the tenant's chain lock (a transaction's
rows, one read and one rewrite of each day they touch): the day's row and the audit commit
together or not at all, and no two appends of a tenant add to a day at once. A day with
no row yet (its first row since revision 0014_insight_days, or a day before that
revision) is summed from the audit rows it has, the new one included, when its first
row comes or when a reader rolls it up (insight_period.py).

`head_seq` is the chain's `seq` of the last row added to the day: every row of the day
at or below it is in the summary, none above it (the chain's rows commit in `seq`
order under the lock), which lets the kept insight (insight_cache.py) carry on from the
days it read with the rows appended after.
"""

from __future__ import annotations

import base64
import json
import sys
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import Connection, event, insert, select, update
from sqlalchemy.orm import Session

from activities.store.database import table_of
from activities.store.insight_scan import Key, Scanned, scan
from activities.store.insight_schema import InsightDay
from activities.store.schema import DecisionRow

DECISIONS = table_of(DecisionRow)
# The session's audit rows waiting for their days, added as its transaction commits.
PENDING_ROWS = "signoff.insight_rows"
DAYS = table_of(InsightDay)
ONE_DAY = timedelta(days=1)
# The insight columns one pass reads (insight_scan.Row), all in the covering index.
SCANNED_NAMES = (
    "tool",
    "reviewer_id",
    "kind",
    "outcome",
    "category",
    "currency",
    "amount_minor",
    "waited_ms",
)
SCANNED = tuple(DECISIONS.c[name] for name in SCANNED_NAMES)
WAIT_CODE = "q"  # a wait in ms, 64 bits: a request may wait longer than 24 days


def in_period(rows: Any, tenant_ids: Sequence[str], since: datetime, until: datetime) -> list[Any]:
    """The period's rows of `rows` (the table's columns, or the ORM class): one tenant, or
    each of a few (the fleet's metrics), a range of the index per tenant."""
    tenant = (
        rows.tenant_id == tenant_ids[0] if len(tenant_ids) == 1 else rows.tenant_id.in_(tenant_ids)
    )
    return [
        tenant,
        rows.decided_at >= since,
        rows.decided_at < until,
        rows.outcome.is_not(None),  # the partial index's own condition
    ]


def day_of(at: datetime) -> date:
    """The UTC day of a moment (SQLite hands the audit's times back naive, in UTC)."""
    return (at.astimezone(UTC) if at.tzinfo is not None else at).date()


def start_of(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def encode(scanned: Scanned) -> str:
    """A day's summary. The waits in all are those of the tools, merged (scan adds a wait
    to both or to neither), so they are not kept twice."""
    return json.dumps(
        {
            "rows": _rows(scanned.counts, scanned.sums),
            "reviewer_rows": _rows(scanned.reviewer_counts, scanned.reviewer_sums),
            "tools": [[tool, _packed(waits)] for tool, waits in scanned.tool_waits.items()],
            "reviewers": [[name, _packed(waits)] for name, waits in scanned.reviewer_waits.items()],
        },
        separators=(",", ":"),
    )


def _rows(counts: Counter[Key], sums: Counter[Key]) -> list[list[Any]]:
    return [[*key, count, sums.get(key, 0)] for key, count in counts.items()]


def _packed(waits: list[int]) -> str:
    """Waits as base64 of little-endian 64-bit integers: a period's 100,000 waits unpack
    in C, where as JSON numbers they were half of the read."""
    packed = array(WAIT_CODE, waits)
    if sys.byteorder != "little":
        packed.byteswap()
    return base64.b64encode(packed.tobytes()).decode("ascii")


def _unpacked(text: str) -> array[int]:
    waits = array(WAIT_CODE)
    waits.frombytes(base64.b64decode(text))
    if sys.byteorder != "little":
        waits.byteswap()
    return waits


def add_summary(text: str, into: Scanned) -> Scanned:
    """Add a day's summary to `into`; its waits are appended: `sort_waits` after the last."""
    summary = json.loads(text)
    for rows, counts, sums in (
        (summary["rows"], into.counts, into.sums),
        (summary["reviewer_rows"], into.reviewer_counts, into.reviewer_sums),
    ):
        for *columns, count, amount in rows:
            key = tuple(columns)
            counts[key] += count
            if amount:
                sums[key] += amount
    for tool, packed in summary["tools"]:
        waits = _unpacked(packed)
        into.tool_waits[tool].extend(waits)
        into.all_waits.extend(waits)
    for name, packed in summary["reviewers"]:
        into.reviewer_waits[name].extend(_unpacked(packed))
    return into


def decoded(text: str) -> Scanned:
    scanned = add_summary(text, Scanned())
    scanned.sort_waits()
    return scanned


def audit_scan(
    connection: Connection,
    tenant_ids: Sequence[str],
    ranges: Iterable[tuple[datetime, datetime]],
    head: int | None = None,
    into: Scanned | None = None,
) -> Scanned:
    """The audit rows of the time ranges (a day, a period's part day), read from the
    covering index, added to `into`; with `head`, only those at or below it. Their waits
    are appended: `sort_waits` after the last."""
    scanned = Scanned() if into is None else into
    for since, until in ranges:
        period = in_period(DECISIONS.c, tenant_ids, since, until)
        if head is not None:
            period.append(DECISIONS.c.seq <= head)
        merge(scan(connection.execute(select(*SCANNED).where(*period))), scanned)
    return scanned


def merge(part: Scanned, into: Scanned) -> None:
    """Add `part` to `into`, its waits appended, not put in place: a period's parts are
    sorted once, after the last (insort, one wait at a time, is for a few)."""
    into.add_counts(part)
    for tool, waits in part.tool_waits.items():
        into.tool_waits[tool].extend(waits)
    for name, waits in part.reviewer_waits.items():
        into.reviewer_waits[name].extend(waits)
    into.all_waits.extend(part.all_waits)


def write_day(connection: Connection, tenant_id: str, day: date, head: int) -> None:
    """Sum a day with no row from the audit and write its row: under the chain's lock."""
    scanned = audit_scan(connection, [tenant_id], [(start_of(day), start_of(day + ONE_DAY))])
    scanned.sort_waits()
    connection.execute(
        insert(DAYS).values(tenant_id=tenant_id, day=day, head_seq=head, summary=encode(scanned))
    )


def add_row_at_commit(session: Session, values: dict[str, Any]) -> None:
    """Add the audit row just inserted (its columns, `values`; None ones left out) to its
    day when the append's transaction commits, still under the tenant's chain lock: the
    rows a transaction appends (a refund's approval and its `executed` row, a batch of
    decisions) read and rewrite their day's summary once, not once a row."""
    if values.get("outcome") is None:
        return  # no figure counts it
    session.info.setdefault(PENDING_ROWS, []).append(values)


# Every session of the process, once: a session with no rows waiting only looks.
@event.listens_for(Session, "before_commit")
def _add_pending(session: Session) -> None:
    rows = session.info.pop(PENDING_ROWS, None)
    if rows:
        add_rows(session.connection(), rows)


@event.listens_for(Session, "after_rollback")
def _forget_pending(session: Session) -> None:
    session.info.pop(PENDING_ROWS, None)  # rolled back: their rows were never written


def add_rows(connection: Connection, rows: list[dict[str, Any]]) -> None:
    """Add audit rows inserted in this transaction (their columns; None ones left out),
    in `seq` order, to their days, under the tenant's chain lock."""
    by_day: dict[tuple[str, date], list[dict[str, Any]]] = {}
    for values in rows:
        by_day.setdefault((values["tenant_id"], day_of(values["decided_at"])), []).append(values)
    for (tenant_id, day), day_rows in by_day.items():
        head = max(values["seq"] for values in day_rows)
        this_day = (DAYS.c.tenant_id == tenant_id, DAYS.c.day == day)
        stored = connection.execute(select(DAYS.c.summary).where(*this_day)).scalar_one_or_none()
        if stored is None:
            write_day(connection, tenant_id, day, head)  # the new rows are among the day's
            continue
        scanned: Any = [tuple(values.get(name) for name in SCANNED_NAMES) for values in day_rows]
        summary = added(json.loads(stored), scan(scanned))
        connection.execute(update(DAYS).where(*this_day).values(head_seq=head, summary=summary))


def added(summary: dict[str, Any], part: Scanned) -> str:
    """A day's summary (parsed) with a few rows more (`part`), unpacking only the waits
    they add to: every append of a busy day's decision passes here (a whole day decoded
    and encoded again cost 2 to 4 ms a row at 2,700 rows a day; bench/insight)."""
    for name, counts, sums in (
        ("rows", part.counts, part.sums),
        ("reviewer_rows", part.reviewer_counts, part.reviewer_sums),
    ):
        entries = {tuple(entry[:-2]): entry for entry in summary[name]}
        for key, count in counts.items():
            entry = entries.get(key)
            if entry is None:
                summary[name].append([*key, count, sums.get(key, 0)])
            else:
                entry[-2] += count
                entry[-1] += sums.get(key, 0)
    for name, waits_of in (("tools", part.tool_waits), ("reviewers", part.reviewer_waits)):
        lists = {entry[0]: entry for entry in summary[name]}
        for owner, waits in waits_of.items():
            entry = lists.get(owner)
            if entry is None:
                summary[name].append([owner, _packed(sorted(waits))])
            else:
                entry[1] = _packed(sorted([*_unpacked(entry[1]), *waits]))
    return json.dumps(summary, separators=(",", ":"))
