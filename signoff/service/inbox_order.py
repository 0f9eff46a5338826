"""The inbox arranged as a reviewer asks: soonest expiry first (the default) or the
largest amount first, filtered by mode, one page at a time.

Both orders page by position, as the pending listing does (pending_pages.py): a cursor
names the last request seen, so a request decided meanwhile never makes a reader skip
another. Each order has its own cursor kind, so a cursor of one order handed to the
other is refused rather than read as a position it is not.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Literal, get_args

from signoff.service.paging import InvalidCursor, Page
from signoff.service.pending_cursor import (
    hash_cursor,
    hash_cursor_parts,
    pending_page,
    position_of,
)
from signoff.service.pending_item import PendingItem
from workflows.approval_policy import to_minor

InboxSort = Literal["time_left", "amount"]
ModeFilter = Literal["confirm", "review"]
SORTS: tuple[str, ...] = get_args(InboxSort)
MODES: tuple[str, ...] = get_args(ModeFilter)
AMOUNT_CURSOR = "a1"
AmountPosition = tuple[int, str]


def amount_minor(item: PendingItem) -> int:
    try:
        return to_minor(Decimal(item.action.arguments.get("amount", "0")))
    except InvalidOperation:
        return 0


def amount_position(item: PendingItem) -> AmountPosition:
    """Largest amount first; the hash breaks ties, as in the expiry order."""
    return (-amount_minor(item), item.action.action_hash)


def with_mode(items: Sequence[PendingItem], mode: ModeFilter | None) -> list[PendingItem]:
    return [item for item in items if mode is None or item.action.mode == mode]


def amount_cursor(position: AmountPosition) -> str:
    negated, action_hash = position
    return hash_cursor(AMOUNT_CURSOR, str(negated), action_hash)


def amount_after(after: str) -> AmountPosition:
    negated, action_hash = hash_cursor_parts(AMOUNT_CURSOR, after)
    try:
        return (int(negated), action_hash)
    except ValueError:
        raise InvalidCursor() from None


def amount_page(items: Sequence[PendingItem], limit: int, after: str | None) -> Page[PendingItem]:
    ordered = sorted(items, key=amount_position)
    start = bisect.bisect_right(ordered, amount_after(after), key=amount_position) if after else 0
    chunk = ordered[start : start + limit]
    more = start + len(chunk) < len(ordered)
    next_cursor = amount_cursor(amount_position(chunk[-1])) if more and chunk else None
    return Page(total=len(ordered), items=chunk, next=next_cursor, first=start)


def arranged_page(
    items: Sequence[PendingItem],
    sort: InboxSort,
    mode: ModeFilter | None,
    limit: int,
    after: str | None,
) -> Page[PendingItem]:
    """One page of `items` (in expiry order, as read_pending gives them), arranged.

    Raises InvalidCursor for an `after` this order did not give out.
    """
    chosen = with_mode(items, mode)
    if sort == "amount":
        return amount_page(chosen, limit, after)
    return pending_page(chosen, position_of, limit, after)
