"""How many refunds wait for a decision, and since when: read at each metrics scrape.

Read from `pending_refunds` (one row per action waiting, written when it starts to
wait), so the number is the same whichever worker or UI process is scraped. Rows whose
`expires_at` has passed count for nothing, as in the exposure sum.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine, func, select

from activities.store.database import use_session
from activities.store.schema import PendingRefund


@dataclass(frozen=True)
class PendingStats:
    count: int
    oldest_created_at: datetime | None


def pending_stats(engine: Engine, now: datetime | None = None) -> PendingStats:
    now = now or datetime.now(UTC)
    query = select(func.count(), func.min(PendingRefund.created_at)).where(
        PendingRefund.expires_at > now
    )
    with use_session(engine) as session:
        count, oldest = session.execute(query).one()
    if oldest is not None and oldest.tzinfo is None:  # SQLite hands back naive UTC
        oldest = oldest.replace(tzinfo=UTC)
    return PendingStats(count=int(count or 0), oldest_created_at=oldest)
