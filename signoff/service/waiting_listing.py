"""The pending listing every face shows (inbox, `GET /api/approvals`, `signoff pending`),
read from the store's read model: a count and one keyset page.

Design note. Listing from Temporal's visibility needed every waiting run for
the first page (visibility cannot sort by expiry; 4.3 s at 3,000 waiting), hidden behind
a two-second cache. The read model (`activities/store/waiting_actions.py`) is written by
the activities the run already calls and mended from visibility when a worker starts,
so a page is now a few indexed queries: no worker and no Temporal call is needed to list.
The detail page and the decision still ask the run itself (its `state` query, the
`decide` update), which has the last word: a row a moment stale cannot be decided.

Cursors keep their form (`pending_cursor.py`, `inbox_order.py`): the position of the last
request seen, soonest expiry first (`p1`) or largest amount first (`a1`).
"""

from __future__ import annotations

import asyncio

from activities.store.waiting_pages import WaitingQuery, waiting_page
from signoff.service.handles import Store, engine_of
from signoff.service.inbox_order import InboxSort, ModeFilter, amount_after, amount_cursor
from signoff.service.paging import Page
from signoff.service.pending_cursor import cursor_position, pending_cursor
from signoff.service.pending_item import pending_items
from signoff.service.pending_page import PendingPage

__all__ = ["PendingPage", "pending_page_of", "read_pending_page"]


def read_pending_page(
    store: Store,
    tenant_id: str | None,
    limit: int,
    after: str | None = None,
    sort: InboxSort = "time_left",
    mode: ModeFilter | None = None,
) -> PendingPage:
    """One page of the tenant's pending actions (every tenant's when None), in `sort`
    order. Raises InvalidCursor for an `after` this order did not give out."""
    engine = engine_of(store)
    position = None
    if after:
        position = amount_after(after) if sort == "amount" else cursor_position(after)
    query = WaitingQuery(tenant_id=tenant_id, order=sort, mode=mode)
    found = waiting_page(engine, query, position, limit)
    items = pending_items(found.rows)
    next_cursor = None
    if found.more and found.rows:
        last = found.rows[-1]
        next_cursor = (
            amount_cursor(
                (None if last.amount_minor is None else -last.amount_minor, last.action_hash)
            )
            if sort == "amount"
            else pending_cursor((last.expires_at, last.action_hash))
        )
    return PendingPage(
        page=Page(total=found.total, items=items, next=next_cursor, first=found.first),
        waiting_all=found.waiting_all,
        waiting_runs=found.waiting_runs,
    )


async def pending_page_of(
    store: Store,
    tenant_id: str | None,
    limit: int,
    after: str | None = None,
    sort: InboxSort = "time_left",
    mode: ModeFilter | None = None,
) -> PendingPage:
    """read_pending_page off the event loop (the store is synchronous)."""
    return await asyncio.to_thread(read_pending_page, store, tenant_id, limit, after, sort, mode)
