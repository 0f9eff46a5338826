"""A page of a listing a person reads: the true total, the items, the cursor of the next.

No list a person reads stops silently: every listing returns its total,
counted over everything that matches (never the length of a page), and a page that is
not the last carries `next`, an opaque cursor that the reader hands back as `after`
(`--after` on the command line) to get the following page.

A cursor is `<kind>.<base64url payload>`: the kind says which listing gave it, so a
cursor of one listing handed to another is refused with a sentence rather than read as
something it is not. Cursors name a position (the last item seen), not a page number,
so that a decision taken meanwhile never makes a reader skip or see twice a request.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Generic, TypeVar

Item = TypeVar("Item")

# A cursor longer than this was not given by us (Temporal's page tokens are far shorter).
MAX_CURSOR_LENGTH = 2000
CURSOR_ADVICE = "Start from the first page (leave `after` out) and follow `next` from there."
# The same refusal in the command line's words.
CLI_INVALID_CURSOR = (
    "This --after cursor was not given by this listing. Start from the first page (leave "
    "--after out) and follow the `next` each page prints."
)


class InvalidCursor(ValueError):
    """An `after` that this listing did not give out; the message says what to do."""

    def __init__(self) -> None:
        super().__init__(f"This `after` cursor was not given by this listing. {CURSOR_ADVICE}")


@dataclass(frozen=True)
class Page(Generic[Item]):
    total: int  # everything that matches, counted, not the length of this page
    items: list[Item]
    next: str | None  # the `after` of the following page; None on the last page
    first: int | None = None  # position of items[0] in the whole listing, when known


def encode_cursor(kind: str, payload: bytes) -> str:
    return f"{kind}.{base64.urlsafe_b64encode(payload).decode('ascii').rstrip('=')}"


def decode_cursor(kind: str, text: str) -> bytes:
    """The payload of a cursor of `kind`; InvalidCursor for anything else."""
    prefix, dot, body = text.partition(".")
    if not dot or prefix != kind or len(text) > MAX_CURSOR_LENGTH:
        raise InvalidCursor()
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidCursor() from None
