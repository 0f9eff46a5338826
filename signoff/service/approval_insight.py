"""The approval insight, for every face: who may read it, and one tenant's figures for a
period of UTC days (activities/store/approval_insight.py computes them from the audit).

A team lead (`lead`) and an administrator (`admin`) read their own tenant's; a reviewer
who only decides does not: the figures name every reviewer of the tenant and how they
decide.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from weakref import WeakKeyDictionary

from sqlalchemy import Engine

from activities.store import ADMIN_ROLE
from activities.store.insight_cache import InsightCache
from activities.store.insight_figures import Disagreement, Insight, ShadowCheck, Tally
from signoff.service.handles import Store, engine_of
from signoff.service.reviewer_access import SignedInReviewer

__all__ = [
    "LEAD_ROLE",
    "Disagreement",
    "Insight",
    "InsightPeriod",
    "ShadowCheck",
    "Tally",
    "insight_of",
    "may_read_insight",
]

LEAD_ROLE = "lead"
INSIGHT_ROLES = (LEAD_ROLE, ADMIN_ROLE)
# Each store's kept periods (insight_cache.py), for as long as its engine lives.
_caches: WeakKeyDictionary[Engine, InsightCache] = WeakKeyDictionary()
_caches_lock = threading.Lock()


def may_read_insight(reviewer: SignedInReviewer) -> bool:
    return bool(set(INSIGHT_ROLES) & set(reviewer.roles))


@dataclass(frozen=True)
class InsightPeriod:
    """UTC days, both included."""

    since: date
    until: date

    @property
    def start(self) -> datetime:
        return datetime.combine(self.since, time.min, tzinfo=UTC)

    @property
    def end(self) -> datetime:
        """The first moment after the period."""
        return datetime.combine(self.until + timedelta(days=1), time.min, tzinfo=UTC)


def insight_of(store: Store, tenant_id: str, period: InsightPeriod) -> Insight:
    """The tenant's figures of the period: the caller passes the signed-in reviewer's
    tenant, never one a request names. A period read before is brought up to date with
    the rows appended since, not read again."""
    engine = engine_of(store)
    with _caches_lock:
        cache = _caches.setdefault(engine, InsightCache())
    return cache.insight(engine, tenant_id, period.start, period.end)
