"""The inbox's cursors (pending_cursor.py, inbox_order.py): a cursor names the last
request seen and round-trips; one of another kind or forged is refused with what to do;
and the line above a page says what is counted. Paging itself is the store's read model
(tests/store/test_waiting_pages.py)."""

from __future__ import annotations

import pytest

from signoff.service.inbox_order import amount_after, amount_cursor
from signoff.service.paging import InvalidCursor, decode_cursor, encode_cursor
from signoff.service.pending_cursor import cursor_position, pending_cursor, pending_summary
from tests.clock import clock_now

NOW = clock_now()
HASH = "0" * 63 + "1"


def test_a_cursor_names_its_position_and_round_trips() -> None:
    assert cursor_position(pending_cursor((NOW, HASH))) == (NOW, HASH)
    assert amount_after(amount_cursor((-8990, HASH))) == (-8990, HASH)


def test_cursors_of_another_kind_or_forged_are_refused() -> None:
    by_time = pending_cursor((NOW, HASH))
    forged = [
        "p1",
        "p1.!!!",
        "r1." + by_time.partition(".")[2],  # a `signoff list` cursor kind
        amount_cursor((-8990, HASH)),  # the other order's cursor
        encode_cursor("p1", b"not a date|" + b"a" * 64),
        encode_cursor("p1", NOW.replace(tzinfo=None).isoformat().encode() + b"|" + b"a" * 64),
        encode_cursor("p1", NOW.isoformat().encode() + b"|XYZ"),
        encode_cursor("p1", b"\xff\xfe"),
        "p1." + "A" * 3000,
    ]
    for cursor in forged:
        with pytest.raises(InvalidCursor, match="follow `next`"):
            cursor_position(cursor)
    with pytest.raises(InvalidCursor):
        amount_after(by_time)


def test_cursor_payload_round_trips_any_bytes() -> None:
    for payload in (b"", b"\x00\xff", bytes(range(256))):
        assert decode_cursor("r1", encode_cursor("r1", payload)) == payload


def test_the_summary_says_what_is_counted() -> None:
    assert pending_summary(0, 0, 0, 0) == "nothing is waiting for a decision"
    assert pending_summary(62, 60, 50, 12) == (
        "62 requests waiting for a decision (in 60 runs), soonest expiry first; 51-62 on this page"
    )
    assert pending_summary(1, 1, 0, 1).startswith("1 request waiting for a decision (in 1 run)")
