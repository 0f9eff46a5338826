"""The approval insight of a period, kept between page views and brought up to date with
the rows appended since: the page's answer in milliseconds once a period was read.

Design note. A period's figures are a sum over its rows, and the audit only grows: a
tenant's rows take the chain's `seq` in order, under the chain's lock, so every row at
or below the head a reader sees is committed (decisions.py). The first view of a period
reads its rows up to the head it saw (the covering index holds `seq`, so that this stays
a read of the index alone) and keeps what they add up to with that head; a later view
reads the head again (one probe of `uq_decisions_tenant_seq`), and only when it moved,
the rows between the two heads (by the same index), keeping those of the period. A row
written late with an old `decided_at` is among them: the period is judged on each row,
not on when it came. A shadow rule's action not ended yet is kept too, and settled by
the appended row that ends it, whenever that comes.

Each process keeps its own few periods (CACHED_PERIODS, least recently used out), per
engine; a period's kept state is its counts and its waits, a few MB for 80,000 rows.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, Select, func, select

from activities.store.approval_insight import (
    ENDINGS,
    Action,
    figures,
    listed,
    settle,
    shadow_checks,
)
from activities.store.database import use_session
from activities.store.insight_columns import RULE_SHADOW
from activities.store.insight_days import DECISIONS, SCANNED, in_period
from activities.store.insight_figures import FIRST_APPROVAL, Disagreement, Insight, ShadowCheck
from activities.store.insight_period import period_scan, roll_up, whole_days
from activities.store.insight_scan import Scanned, scan

CACHED_PERIODS = 8
Period = tuple[str, datetime, datetime]


@dataclass
class Kept:
    head: int
    scanned: Scanned
    shadows: dict[str, ShadowCheck]
    # The shadow rules' actions not ended yet, by action: their rules.
    waiting: dict[Action, list[str]]


class InsightCache:
    def __init__(self, size: int = CACHED_PERIODS) -> None:
        self._size = size
        self._kept: OrderedDict[Period, Kept] = OrderedDict()
        # One reader brings a period up to date at a time: the kept sums are not
        # added to twice.
        self._lock = threading.Lock()

    def insight(self, source: Engine, tenant_id: str, since: datetime, until: datetime) -> Insight:
        key = (tenant_id, since, until)
        head_of = select(func.coalesce(func.max(DECISIONS.c.seq), 0)).where(
            DECISIONS.c.tenant_id == tenant_id
        )
        with self._lock:
            if key not in self._kept:
                roll_up(source, [tenant_id], whole_days(since, until), datetime.now(UTC))
            return self._insight(source, key, head_of)

    def _insight(self, source: Engine, key: Period, head_of: Select[Any]) -> Insight:
        tenant_id, since, until = key
        with use_session(source) as session:
            connection = session.connection()
            head = int(connection.scalar(head_of) or 0)
            kept = self._kept.pop(key, None)
            if kept is None:
                scanned, bound = period_scan(connection, [tenant_id], since, until, head)
                head = head if bound is None else bound
                waiting: dict[Action, list[str]] = {}
                shadows = shadow_checks(
                    session,
                    [*in_period(DECISIONS.c, [tenant_id], since, until), DECISIONS.c.seq <= head],
                    waiting,
                )
                kept = Kept(head, scanned, shadows, waiting)
            elif head > kept.head:
                _add(connection.execute(_since(tenant_id, kept.head, head)), kept, since, until)
                kept.head = head
            self._kept[key] = kept
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
            return figures(kept.scanned, [tenant_id], since, until, listed(kept.shadows))


def _since(tenant_id: str, after: int, head: int) -> Select[Any]:
    """The rows appended after `after` up to `head`, by the chain's unique index alone
    (tenant, seq): few, and judged here on their period and outcome."""
    return (
        select(
            *SCANNED,
            DECISIONS.c.decided_at,
            DECISIONS.c.run_id,
            DECISIONS.c.action_hash,
            DECISIONS.c.rule_id,
        )
        .where(DECISIONS.c.tenant_id == tenant_id, DECISIONS.c.seq > after, DECISIONS.c.seq <= head)
        .order_by(DECISIONS.c.seq)
    )  # in the chain's order: a shadow's row before its ending


def _add(rows: Iterable[Any], kept: Kept, since: datetime, until: datetime) -> None:
    in_period = []
    for row in rows:
        tool, reviewer, kind, outcome, category, _, _, _, at, run_id, action_hash, rule = row
        if outcome is None:
            continue
        if since <= at < until:
            in_period.append(row[: len(SCANNED)])
            if outcome == RULE_SHADOW:
                kept.shadows.setdefault(rule or "", ShadowCheck(rule or "")).matched += 1
                kept.waiting.setdefault((run_id, action_hash), []).append(rule or "")
        if outcome in ENDINGS and kind != FIRST_APPROVAL:
            for rule_id in kept.waiting.pop((run_id, action_hash), []):
                ending = Disagreement(rule_id, run_id, action_hash, at, outcome, reviewer, category)
                settle(kept.shadows[rule_id], ending, newest=True)
    scan(in_period, into=kept.scanned)
