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
not on when it came. The shadow rules' part is read at each view (approval_insight
.figures): a decision that agrees or not may come after the shadow's row.

Each process keeps its own few periods (CACHED_PERIODS, least recently used out), per
engine; a period's kept state is its counts and its waits, a few MB for 80,000 rows.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, func, select

from activities.store.approval_insight import DECISIONS, SCANNED, figures, in_period
from activities.store.database import use_session
from activities.store.insight_figures import Insight
from activities.store.insight_scan import Scanned, scan

CACHED_PERIODS = 8
Period = tuple[str, datetime, datetime]


@dataclass
class Kept:
    head: int
    scanned: Scanned


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
        with self._lock, use_session(source) as session:
            connection = session.connection()
            head = int(connection.scalar(head_of) or 0)
            kept = self._kept.pop(key, None)
            if kept is None:
                period = in_period(DECISIONS.c, [tenant_id], since, until)
                rows = select(*SCANNED).where(*period, DECISIONS.c.seq <= head)
                kept = Kept(head, scan(connection.execute(rows)))  # type: ignore[arg-type]
            elif head > kept.head:
                # By the chain's unique index alone (tenant, seq): the new rows, whose
                # period and outcome are judged here, few as they are.
                rows = select(*SCANNED, DECISIONS.c.decided_at).where(
                    DECISIONS.c.tenant_id == tenant_id,
                    DECISIONS.c.seq > kept.head,
                    DECISIONS.c.seq <= head,
                )
                new = (
                    row[:-1]
                    for row in connection.execute(rows)
                    if row.outcome is not None and since <= row.decided_at < until
                )
                scan(new, into=kept.scanned)  # type: ignore[arg-type]
                kept.head = head
            self._kept[key] = kept
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
            return figures(session, kept.scanned, [tenant_id], since, until)
