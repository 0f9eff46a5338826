"""Every request waiting for a decision, counted, soonest expiry first, in pages.

Design note. Temporal's visibility lists the waiting runs, but it cannot list them in
the order a reviewer needs: a request's expiry lives in its run's memo, not in a search
attribute, and the dev server's SQLite visibility cannot ORDER BY a custom attribute
anyway. Visibility returns the newest runs first, so any cut of its listing hides the
oldest requests, the ones that expire first. So a page is cut from the whole listing:
every waiting run of the tenant is listed (one visibility call per 1,000 runs, the memo
carries each run's pending actions), the actions are sorted by expiry, then the page is
sliced after the cursor. Since issue 13 the faces list from the store's read model
instead (`waiting_listing.py`), with the same cursors; this listing from visibility
stays for comparison (bench/inbox_live.py); its cursors, pages and summary line are in
`pending_cursor.py`, which the faces share.

What is counted. `total` counts pending actions, from that full listing, never from the
length of a page. A run may hold more than one pending action, so Temporal's count
query, which counts runs, gives `waiting_runs` beside it; `unread_runs` counts waiting
runs whose pending actions could not be read (no memo and no worker answering their
query): a reader is told of them rather than shown a smaller number as if it were all.

A cursor is the position of the last item seen, its expiry and hash: a request decided
or added meanwhile never makes a reader skip another or see one twice.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from temporalio.client import Client

from signoff.service.pending import PendingItem, pending_items, waiting_query
from signoff.service.run_listing import read_runs


@dataclass(frozen=True)
class PendingListing:
    items: list[PendingItem]  # every pending action, soonest expiry first
    waiting_runs: int  # runs waiting for a decision, from the count query
    unread_runs: int  # waiting runs listed whose pending actions could not be read


async def read_pending(client: Client, tenant_id: str | None) -> PendingListing:
    """Every pending action of the tenant (all tenants when None), and the run count."""
    query = waiting_query(tenant_id)
    counted, listing = await asyncio.gather(
        client.count_workflows(query), read_runs(client, query, tenant_id=tenant_id, limit=None)
    )
    return PendingListing(pending_items(listing), counted.count, listing.unanswered)
