"""How a reviewer asked to see the inbox: its order (time left or amount) and its mode
filter, read from the query string, refused in words when they are not ones we offer,
and carried on by every link and poll of the page."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated, cast
from urllib.parse import urlencode

from fastapi import HTTPException, Query, status

from approvals_ui.lookups import InboxRow, inbox_rows
from signoff.service.inbox_order import MODES, SORTS, InboxSort, ModeFilter
from signoff.service.paging import Page
from signoff.service.store import Store
from signoff.service.ticket_excerpts import ticket_words
from signoff.service.waiting_listing import PendingPage, pending_page_of

ChoiceQuery = Annotated[str, Query(max_length=20)]
SORT_LABELS = {"time_left": "time left, soonest expiry first", "amount": "amount, largest first"}
MODE_LABELS = {"confirm": "confirm (one reviewer)", "review": "four eyes (two reviewers)"}


@dataclass(frozen=True)
class InboxView:
    sort: InboxSort = "time_left"
    mode: ModeFilter | None = None

    def query(self, **extra: str) -> str:
        """The query string that keeps this view (empty for the default one)."""
        pairs = {"sort": self.sort if self.sort != "time_left" else "", "mode": self.mode or ""}
        return urlencode({key: value for key, value in {**pairs, **extra}.items() if value})


def inbox_view(sort: str, mode: str) -> InboxView:
    if sort and sort not in SORTS:
        raise HTTPException(
            status.HTTP_400_BAD_REQUEST,
            f"The inbox sorts by {' or '.join(SORTS)}, not '{sort}'. Pick one of those.",
        )
    if mode and mode not in MODES:
        raise HTTPException(
            status.HTTP_400_BAD_REQUEST,
            f"The mode filter is {' or '.join(MODES)} (or nothing), not '{mode}'.",
        )
    return InboxView(
        sort=cast(InboxSort, sort or "time_left"), mode=cast(ModeFilter, mode) if mode else None
    )


async def arranged_rows(
    engine: Store, tenant_id: str, view: InboxView, limit: int, after: str | None
) -> tuple[Page[InboxRow], PendingPage]:
    """One page as the view asks, from the store's read model, with its tickets' words
    (excerpt, customer) read for this page alone, in one query. Raises InvalidCursor
    for a foreign `after`."""
    listed = await pending_page_of(engine, tenant_id, limit, after, view.sort, view.mode)
    page = listed.page
    words = await asyncio.to_thread(ticket_words, engine, page.items)
    rows = inbox_rows(page.items, words)
    return Page(total=page.total, items=rows, next=page.next, first=page.first), listed
