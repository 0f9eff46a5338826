"""The inbox arranged as a reviewer asks: soonest expiry first (the default) or the
largest amount first, filtered by mode, one page at a time.

Both orders page by position (the store's read model, waiting_listing.py): a cursor
names the last request seen, so a request decided meanwhile never makes a reader skip
another. Each order has its own cursor kind, so a cursor of one order handed to the
other is refused rather than read as a position it is not.
"""

from __future__ import annotations

from typing import Literal, get_args

from signoff.service.paging import InvalidCursor
from signoff.service.pending_cursor import hash_cursor, hash_cursor_parts

InboxSort = Literal["time_left", "amount"]
ModeFilter = Literal["confirm", "review"]
SORTS: tuple[str, ...] = get_args(InboxSort)
MODES: tuple[str, ...] = get_args(ModeFilter)
AMOUNT_CURSOR = "a1"
# The negated amount, or None for a request of a tool without one (they come last).
AmountPosition = tuple[int | None, str]
NO_AMOUNT = "none"


def amount_cursor(position: AmountPosition) -> str:
    negated, action_hash = position
    return hash_cursor(AMOUNT_CURSOR, NO_AMOUNT if negated is None else str(negated), action_hash)


def amount_after(after: str) -> AmountPosition:
    negated, action_hash = hash_cursor_parts(AMOUNT_CURSOR, after)
    if negated == NO_AMOUNT:
        return (None, action_hash)
    try:
        return (int(negated), action_hash)
    except ValueError:
        raise InvalidCursor() from None
