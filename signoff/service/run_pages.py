"""`signoff list` in pages: Temporal's own paging, and its count query for the total.

Unlike the pending requests, runs are listed in visibility's own order (newest first),
so a page is one visibility call of `limit` runs, and its cursor is the page token
Temporal gave for the next one. The total comes from the count query over the same
filter. Visibility may hand out a token when the page it ends was exactly the last:
the page it leads to is then empty, and says so.
"""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio.service import RPCError, RPCStatusCode

from signoff.service.handles import Runs, client_of
from signoff.service.paging import InvalidCursor, Page, decode_cursor, encode_cursor
from signoff.service.runs import STATUS_KEY, TENANT_KEY

CURSOR_KIND = "r1"


def page_token(after: str | None) -> bytes | None:
    """Temporal's page token in a cursor this listing gave; InvalidCursor otherwise."""
    return decode_cursor(CURSOR_KIND, after) if after else None


async def runs_page(runs: Runs, query: str, limit: int, after: str | None) -> Page[dict[str, Any]]:
    """One page of the runs `query` matches, with the count of all of them."""
    client = client_of(runs)
    token = page_token(after)
    listing = client.list_workflows(query=query, page_size=limit, next_page_token=token)
    try:
        counted, _ = await asyncio.gather(client.count_workflows(query), listing.fetch_next_page())
    except RPCError as error:
        # A token that decodes but that the server cannot read: ours never is.
        if after and error.status == RPCStatusCode.INVALID_ARGUMENT:
            raise InvalidCursor() from None
        raise
    rows = [
        {
            "run_id": execution.id,
            "status": execution.typed_search_attributes.get(STATUS_KEY) or "unknown",
            "tenant": execution.typed_search_attributes.get(TENANT_KEY),
            "started_at": execution.start_time.isoformat(),
        }
        for execution in listing.current_page or []
    ]
    token = listing.next_page_token
    return Page(
        total=counted.count, items=rows, next=encode_cursor(CURSOR_KIND, token) if token else None
    )
