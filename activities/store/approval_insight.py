"""The approval insight of one tenant's period, read from the audit.

Design note. Three reads, each of a range of the covering index
`ix_decisions_tenant_insight` (tenant, decided_at, then every column they use), so that
none reads a row itself: a GROUP BY that counts and sums per tool, reviewer, kind,
outcome, category and currency (a few hundred groups at most, added up in Python by
insight_figures.tallies); the waits' percentiles, ranked in the database by window
functions (`ROW_NUMBER` over each tool's or reviewer's waits), so that only the two
ranks asked for leave it, not every wait; and the shadow rules' rows, each joined to
what became of its action through `ix_decisions_tenant_run_outcome`. The same SQL runs
on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import Engine, and_, func, literal, select
from sqlalchemy.orm import Session, aliased

from activities.store.database import use_session
from activities.store.insight_columns import APPROVED, EXPIRED, REFUNDED, RULE_SHADOW
from activities.store.insight_figures import (
    FIRST_APPROVAL,
    REVIEWER_OUTCOMES,
    Disagreement,
    Group,
    Insight,
    ShadowCheck,
    tallies,
)
from activities.store.schema import DecisionRow, Tenant, WaitingAction

MEDIAN, TAIL = 50, 95
PERCENT = 100
# A rule's disagreements listed on the page and in the CSV, newest first; the count
# says how many there are in all.
DISAGREEMENTS_LISTED = 100
TENANT_WIDE = "tenant_id"


def _in_period(tenant_ids: Sequence[str], since: datetime, until: datetime) -> list[object]:
    # One tenant, or each of a few (the fleet's metrics): a range of the index per tenant.
    tenant = (
        DecisionRow.tenant_id == tenant_ids[0]
        if len(tenant_ids) == 1
        else DecisionRow.tenant_id.in_(tenant_ids)
    )
    return [
        tenant,
        DecisionRow.decided_at >= since,
        DecisionRow.decided_at < until,
        DecisionRow.outcome.is_not(None),  # the partial index's own condition
    ]


def approval_insight(source: Engine, tenant_id: str, since: datetime, until: datetime) -> Insight:
    """The tenant's figures for decisions from `since` up to `until` (excluded)."""
    return _insight(source, [tenant_id], since, until)


def fleet_insight(source: Engine, since: datetime, until: datetime) -> Insight:
    """Every tenant's figures together, for the metrics, which name no tenant: per tool
    and in all (with no percentile in all: the tenants' waits are not ranked together)."""
    with use_session(source) as session:
        tenants = list(session.scalars(select(Tenant.id).order_by(Tenant.id)))
    return _insight(source, tenants, since, until)


def _insight(
    source: Engine, tenant_ids: Sequence[str], since: datetime, until: datetime
) -> Insight:
    period = _in_period(tenant_ids, since, until)
    with use_session(source) as session:
        total, tools, reviewers = tallies(_groups(session, period) if tenant_ids else [])
        for column, by_name in (("tool", tools), ("reviewer_id", reviewers)):
            for name, (p50, p95) in _percentiles(session, period, column).items():
                if name in by_name:
                    by_name[name].p50_ms, by_name[name].p95_ms = p50, p95
        if len(tenant_ids) == 1:
            total.p50_ms, total.p95_ms = _percentiles(session, period, TENANT_WIDE).get(
                tenant_ids[0], (None, None)
            )
        return Insight(
            tenant_id=tenant_ids[0] if len(tenant_ids) == 1 else "",
            since=since,
            until=until,
            total=total,
            tools=sorted(tools.values(), key=lambda tally: tally.name),
            reviewers=sorted(reviewers.values(), key=lambda tally: tally.name),
            refunded=_refunded(session, period) if tenant_ids else {},
            shadows=_shadows(session, period) if tenant_ids else [],
        )


def _groups(session: Session, period: Sequence[object]) -> list[Group]:
    columns = (
        DecisionRow.tool,
        DecisionRow.reviewer_id,
        DecisionRow.kind,
        DecisionRow.outcome,
        DecisionRow.category,
        DecisionRow.currency,
    )
    statement = (
        select(*columns, func.count(), func.coalesce(func.sum(DecisionRow.amount_minor), 0))
        .where(*period)
        .group_by(*columns)
    )
    return [
        Group(tool, reviewer, kind, outcome, category, currency, int(rows), int(minor))
        for tool, reviewer, kind, outcome, category, currency, rows, minor in session.execute(
            statement
        )
    ]


def _percentiles(
    session: Session, period: Sequence[object], column: str
) -> dict[str, tuple[int, int]]:
    """The p50 and p95 of the waits of reviewers' decisions per `column` (the tool, the
    reviewer, or the tenant as a whole). A tool's waits are the decisions that ended its
    requests; a reviewer's, each of their own decisions, first approvals included."""
    by = getattr(DecisionRow, column)
    kinds: tuple[str, ...] = REVIEWER_OUTCOMES
    if column == "reviewer_id":
        kinds = (*kinds, FIRST_APPROVAL)
    waits = (
        select(
            by.label("name"),
            DecisionRow.waited_ms.label("waited"),
            func.row_number().over(partition_by=by, order_by=DecisionRow.waited_ms).label("rank"),
            func.count().over(partition_by=by).label("size"),
        )
        .where(
            *period,
            DecisionRow.outcome.in_(REVIEWER_OUTCOMES),
            DecisionRow.kind.in_(kinds),
            DecisionRow.waited_ms.is_not(None),
            by.is_not(None),
        )
        .subquery()
    )
    # Nearest rank: ceil(size * p / 100), in integers on both databases.
    median_rank = (waits.c.size * MEDIAN + PERCENT - 1) // PERCENT
    tail_rank = (waits.c.size * TAIL + PERCENT - 1) // PERCENT
    statement = select(
        waits.c.name, waits.c.waited, waits.c.rank == median_rank, waits.c.rank == tail_rank
    ).where((waits.c.rank == median_rank) | (waits.c.rank == tail_rank))
    found: dict[str, list[int]] = {}
    for name, waited, is_median, is_tail in session.execute(statement):
        pair = found.setdefault(str(name), [0, 0])
        if is_median:
            pair[0] = int(waited)
        if is_tail:
            pair[1] = int(waited)
    return {name: (pair[0], pair[1]) for name, pair in found.items()}


def _refunded(session: Session, period: Sequence[object]) -> dict[str, int]:
    statement = (
        select(DecisionRow.currency, func.coalesce(func.sum(DecisionRow.amount_minor), 0))
        .where(*period, DecisionRow.outcome == REFUNDED)
        .group_by(DecisionRow.currency)
    )
    return {currency or "": int(minor) for currency, minor in session.execute(statement) if minor}


def _shadows(session: Session, period: Sequence[object]) -> list[ShadowCheck]:
    """Each shadow rule's actions in the period against what became of them."""
    shadow, ended = DecisionRow, aliased(DecisionRow)
    statement = (
        select(
            shadow.rule_id,
            shadow.run_id,
            shadow.action_hash,
            ended.outcome,
            ended.reviewer_id,
            ended.category,
            ended.decided_at,
        )
        .outerjoin(
            ended,
            and_(
                ended.tenant_id == shadow.tenant_id,
                ended.run_id == shadow.run_id,
                ended.action_hash == shadow.action_hash,
                ended.outcome.in_((*REVIEWER_OUTCOMES, EXPIRED)),
                ended.kind != literal(FIRST_APPROVAL),
            ),
        )
        .where(*period, shadow.outcome == RULE_SHADOW)
        .order_by(ended.decided_at.desc())
    )
    checks: dict[str, ShadowCheck] = {}
    for rule_id, run_id, action_hash, outcome, reviewer, category, at in session.execute(statement):
        check = checks.setdefault(rule_id or "", ShadowCheck(rule_id or ""))
        check.matched += 1
        if outcome not in REVIEWER_OUTCOMES:
            continue  # expired, or still waiting: nothing to compare with
        check.compared += 1
        if outcome == APPROVED:
            check.agreed += 1
            continue
        check.disagreed += 1
        if len(check.disagreements) < DISAGREEMENTS_LISTED:
            check.disagreements.append(
                Disagreement(rule_id or "", run_id, action_hash, at, outcome, reviewer, category)
            )
    return sorted(checks.values(), key=lambda check: check.rule_id)


def oldest_waiting(source: Engine, now: datetime) -> datetime | None:
    """When the oldest request of any tool still waiting began to wait (the inbox's rows
    not expired), for the metrics' alert on requests waiting too long."""
    query = select(func.min(WaitingAction.created_at)).where(WaitingAction.expires_at > now)
    with use_session(source) as session:
        oldest = session.scalar(query)
    if oldest is not None and oldest.tzinfo is None:  # SQLite hands an aggregate back naive
        oldest = oldest.replace(tzinfo=UTC)
    return oldest
