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
stays for comparison (bench/inbox_live.py) and for its cursor and summary helpers.

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
import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from temporalio.client import Client

from signoff.service.paging import InvalidCursor, Page, decode_cursor, encode_cursor
from signoff.service.pending import PendingItem, pending_items, waiting_query
from signoff.service.run_listing import read_runs

Item = TypeVar("Item")
Position = tuple[datetime, str]
CURSOR_KIND = "p1"
HASH_PATTERN = re.compile(r"^[0-9a-f]{64}$")


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


def position_of(item: PendingItem) -> Position:
    return (item.action.expires_at, item.action.action_hash)


def pending_cursor(position: Position) -> str:
    expires_at, action_hash = position
    return encode_cursor(CURSOR_KIND, f"{expires_at.isoformat()}|{action_hash}".encode())


def cursor_position(after: str) -> Position:
    """The position a cursor names; InvalidCursor for one this listing did not give."""
    try:
        expiry, _, action_hash = decode_cursor(CURSOR_KIND, after).decode("ascii").partition("|")
        expires_at = datetime.fromisoformat(expiry)
    except (UnicodeDecodeError, ValueError):
        raise InvalidCursor() from None
    if expires_at.tzinfo is None or not HASH_PATTERN.match(action_hash):
        raise InvalidCursor()
    return (expires_at, action_hash)


def pending_page(
    items: Sequence[Item], position: Callable[[Item], Position], limit: int, after: str | None
) -> Page[Item]:
    """The `limit` items after the cursor `after` (from the first when None).

    `items` must be in position order (as read_pending gives them).
    """
    if limit < 1:
        raise ValueError("a page holds at least one item")
    start = bisect.bisect_right(items, cursor_position(after), key=position) if after else 0
    chunk = list(items[start : start + limit])
    more = start + len(chunk) < len(items)
    next_cursor = pending_cursor(position(chunk[-1])) if more and chunk else None
    return Page(total=len(items), items=chunk, next=next_cursor, first=start)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def pending_summary(total: int, waiting_runs: int, first: int, shown: int) -> str:
    """The line above a page: what is counted, and which part of it this page shows."""
    if total == 0 and waiting_runs == 0:
        return "nothing is waiting for a decision"
    where = f"{first + 1}-{first + shown} on this page" if shown else "none on this page"
    return (
        f"{plural(total, 'request')} waiting for a decision (in {plural(waiting_runs, 'run')}), "
        f"soonest expiry first; {where}"
    )


def unread_warning(unread_runs: int) -> str:
    return (
        f"warning: {plural(unread_runs, 'waiting run')} could not be read (no worker answered); "
        "their requests are not listed. Start a worker (`signoff worker`) and list again."
    )
