"""Reading the audit: one tenant's decision events, newest first, filtered and paged.

Pages are keyset pages on the tenant's chain sequence: a page is the `limit` rows
below a `seq` (the cursor), so a page costs the same deep in the log as on top, and
rows appended meanwhile never shift what the next page shows. The total is a COUNT
with the same filter, or, unfiltered, the head of the tenant's chain (its `seq`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import Engine, Select, func, select
from sqlalchemy.orm import Session

from activities.store.database import use_session
from activities.store.schema import DecisionRow


@dataclass(frozen=True)
class AuditQuery:
    tenant_id: str
    reviewer: str | None = None
    kind: str | None = None
    since: date | None = None  # UTC days, both ends included
    until: date | None = None


@dataclass(frozen=True)
class AuditPage:
    rows: list[DecisionRow]
    total: int
    # The cursor of the next (older) page, or None on the last page.
    next_before: int | None


def _start_of(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _filtered(query: AuditQuery) -> Select[DecisionRow]:
    statement = select(DecisionRow).where(DecisionRow.tenant_id == query.tenant_id)
    if query.reviewer is not None:
        statement = statement.where(DecisionRow.reviewer_id == query.reviewer)
    if query.kind is not None:
        statement = statement.where(DecisionRow.kind == query.kind)
    if query.since is not None:
        statement = statement.where(DecisionRow.decided_at >= _start_of(query.since))
    if query.until is not None:
        end = _start_of(query.until + timedelta(days=1))
        statement = statement.where(DecisionRow.decided_at < end)
    return statement


def audit_page(
    source: Engine, query: AuditQuery, *, before: int | None = None, limit: int
) -> AuditPage:
    """`limit` rows of the tenant's audit below `before` (a seq), newest first."""
    filtered = _filtered(query)
    with use_session(source) as session:
        rows, next_before = _rows_below(session, filtered, before, limit)
        return AuditPage(rows, _total(session, query, filtered), next_before)


def _total(session: Session, query: AuditQuery, filtered: Select[DecisionRow]) -> int:
    """The filtered COUNT; unfiltered, the chain's head `seq`, which counts the tenant's
    events from 1 with no gap (`decisions.append_event`): one index probe, not a scan of
    every row."""
    if query == AuditQuery(query.tenant_id):
        head = select(func.max(DecisionRow.seq)).where(DecisionRow.tenant_id == query.tenant_id)
        return int(session.scalar(head) or 0)
    return int(session.scalar(select(func.count()).select_from(filtered.subquery())) or 0)


def _rows_below(
    session: Session, filtered: Select[DecisionRow], before: int | None, limit: int
) -> tuple[list[DecisionRow], int | None]:
    page = filtered if before is None else filtered.where(DecisionRow.seq < before)
    rows = list(session.scalars(page.order_by(DecisionRow.seq.desc()).limit(limit + 1)))
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, rows[-1].seq if more else None


def audit_rows(source: Engine, query: AuditQuery, *, batch: int) -> list[DecisionRow]:
    """Every matching row, newest first, read in keyset batches (for the CSV)."""
    rows: list[DecisionRow] = []
    before: int | None = None
    filtered = _filtered(query)
    with use_session(source) as session:
        while True:
            batch_rows, before = _rows_below(session, filtered, before, batch)
            rows.extend(batch_rows)
            if before is None:
                return rows
