"""The approval insight of one tenant's period, read from the audit.

Design note. Two reads. The first adds up the period's rows: its whole UTC days from
their rows in `insight_days`, which the audit's writer keeps (insight_days.py), and its
part days at either end from a range of the covering index `ix_decisions_tenant_insight`
(insight_period.py); then added up per tool and reviewer (insight_figures.tallies). The
second is the shadow rules' rows of the period, each joined to what became of its action
through `ix_decisions_tenant_run_outcome`. The same SQL runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, and_, func, literal, select
from sqlalchemy.orm import Session

from activities.store.database import use_session
from activities.store.insight_columns import APPROVED, EXPIRED, RULE_SHADOW
from activities.store.insight_days import DECISIONS, in_period
from activities.store.insight_figures import (
    FIRST_APPROVAL,
    NO_TOOL,
    REVIEWER_OUTCOMES,
    Disagreement,
    Insight,
    ShadowCheck,
    Tally,
    tallies,
)
from activities.store.insight_period import period_scan, roll_up, whole_days
from activities.store.insight_scan import Scanned, percentiles
from activities.store.schema import Tenant, WaitingAction

# A rule's disagreements listed on the page and in the CSV, newest first; the count
# says how many there are in all.
DISAGREEMENTS_LISTED = 25


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
    roll_up(source, tenant_ids, whole_days(since, until), datetime.now(UTC))
    with use_session(source) as session:
        scanned, _ = period_scan(session.connection(), tenant_ids, since, until)
        checks = (
            shadow_checks(session, in_period(DECISIONS.c, tenant_ids, since, until))
            if tenant_ids
            else {}
        )
        return figures(scanned, tenant_ids, since, until, listed(checks))


NO_WAITS: tuple[int | None, int | None] = (None, None)


def figures(
    scanned: Scanned,
    tenant_ids: Sequence[str],
    since: datetime,
    until: datetime,
    shadows: list[ShadowCheck],
) -> Insight:
    """The insight of what was scanned, and of the shadow rules' actions."""
    counted, tools, reviewers = tallies(scanned.groups(), scanned.reviewer_groups())
    tool_waits = {tool or NO_TOOL: waits for tool, waits in scanned.tool_waits.items()}
    total = Tally.of(counted, percentiles(scanned.all_waits) if len(tenant_ids) == 1 else NO_WAITS)
    return Insight(
        tenant_id=tenant_ids[0] if len(tenant_ids) == 1 else "",
        since=since,
        until=until,
        total=total,
        tools=[
            Tally.of(counts, percentiles(tool_waits.get(name, [])))
            for name, counts in sorted(tools.items())
        ],
        reviewers=[
            Tally.of(
                counts,
                percentiles(waits) if (waits := scanned.reviewer_waits.get(name)) else NO_WAITS,
            )
            for name, counts in sorted(reviewers.items())
        ],
        refunded=scanned.refunded(),
        shadows=shadows,
    )


Action = tuple[str, str]  # (run_id, action_hash)
# What ends an action a shadow rule would have approved: a reviewer's decision, or its
# expiry (compared with nothing).
ENDINGS = (*REVIEWER_OUTCOMES, EXPIRED)


def shadow_checks(
    session: Session, period: Sequence[Any], waiting: dict[Action, list[str]] | None = None
) -> dict[str, ShadowCheck]:
    """Each shadow rule's actions in the period against what became of them; those not
    ended yet go in `waiting` (by action: its rules), for insight_cache to settle later."""
    # In Core: the ORM's loading of each row cost as much as the join (bench/insight).
    ending = DECISIONS.alias("ended")
    shadow, ended = DECISIONS.c, ending.c
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
        .select_from(
            DECISIONS.outerjoin(
                ending,
                and_(
                    ended.tenant_id == shadow.tenant_id,
                    ended.run_id == shadow.run_id,
                    ended.action_hash == shadow.action_hash,
                    ended.outcome.in_(ENDINGS),
                    ended.kind != literal(FIRST_APPROVAL),
                ),
            )
        )
        .where(*period, shadow.outcome == RULE_SHADOW)
        .order_by(ended.decided_at.desc(), ended.seq.desc())
    )
    checks: dict[str, ShadowCheck] = {}
    rows = session.connection().execute(statement)
    for rule_id, run_id, action_hash, outcome, reviewer, category, at in rows:
        check = checks.setdefault(rule_id or "", ShadowCheck(rule_id or ""))
        check.matched += 1
        if outcome is None and waiting is not None:
            waiting.setdefault((run_id, action_hash), []).append(rule_id or "")
        elif outcome is not None:
            settle(
                check,
                Disagreement(rule_id or "", run_id, action_hash, at, outcome, reviewer, category),
            )
    return checks


def settle(check: ShadowCheck, ending: Disagreement, newest: bool = False) -> None:
    """Count what became of one of the rule's actions (`ending`, whatever it was); list
    it when the reviewer did otherwise. `newest`: it came after those listed."""
    if ending.outcome not in REVIEWER_OUTCOMES:
        return  # expired: nothing to compare with
    check.compared += 1
    if ending.outcome == APPROVED:
        check.agreed += 1
        return
    check.disagreed += 1
    if newest:
        check.disagreements.insert(0, ending)
        del check.disagreements[DISAGREEMENTS_LISTED:]
    elif len(check.disagreements) < DISAGREEMENTS_LISTED:
        check.disagreements.append(ending)


def listed(checks: dict[str, ShadowCheck]) -> list[ShadowCheck]:
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
