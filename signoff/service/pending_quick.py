"""`signoff pending`'s page without SQLAlchemy: the read model through the driver alone.

The same page as `read_pending_page` (soonest expiry first, one tenant or all, the same
cursors and counts), from `activities/waiting_read.py`, for a command that starts as a
new process a person waits for. None when that read cannot be sure to give what the
store would (no store yet, another schema revision, another driver, a driver error):
the caller then reads through the store, which says what is wrong in its own words.
"""

from __future__ import annotations

from activities.waiting_read import NotLean, read_waiting
from signoff.config.settings import Settings
from signoff.service.paging import Page
from signoff.service.pending_cursor import cursor_position, pending_cursor
from signoff.service.pending_item import pending_items
from signoff.service.pending_page import PendingPage


def quick_pending_page(
    settings: Settings, tenant_id: str | None, limit: int, after: str | None = None
) -> PendingPage | None:
    """One page, soonest expiry first; raises InvalidCursor for an `after` this listing
    did not give out, as read_pending_page does; None: read through the store."""
    position = cursor_position(after) if after else None
    try:
        found = read_waiting(settings.resolved_database_url, tenant_id, position, limit)
    except NotLean:
        return None
    items = pending_items(found.rows)
    next_cursor = None
    if found.more and found.rows:
        last = found.rows[-1]
        next_cursor = pending_cursor((last.expires_at, last.action_hash))
    return PendingPage(
        page=Page(total=found.total, items=items, next=next_cursor, first=found.first),
        waiting_all=found.total,
        waiting_runs=found.waiting_runs,
    )
