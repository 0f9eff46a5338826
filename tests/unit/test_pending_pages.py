"""Pages of waiting requests: soonest expiry first, cursors that never skip nor repeat."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from signoff.service.paging import InvalidCursor, decode_cursor, encode_cursor
from signoff.service.pending import PendingItem, expiry_order
from signoff.service.pending_cursor import (
    cursor_position,
    pending_cursor,
    pending_page,
    pending_summary,
    position_of,
)
from tests.clock import clock_now
from workflows.actions import ActionState, PendingAction

NOW = clock_now()


def item(number: int, expires_in_minutes: int) -> PendingItem:
    action = PendingAction(
        action_hash=f"{number:064x}",
        tool_use_id=f"toolu_{number}",
        tool="refund",
        arguments={"amount": "10.00", "currency": "EUR"},
        targets={"order_id": f"O-{number}"},
        reason="damaged",
        policy_version="2026-11-29",
        state=ActionState(
            order_id=f"O-{number}", currency="EUR", paid_minor=1000, review_threshold_minor=20000
        ),
        state_hash="0" * 64,
        mode="confirm",
        required_approvals=1,
        requested_at=NOW - timedelta(minutes=number),
        expires_at=NOW + timedelta(minutes=expires_in_minutes),
    )
    return PendingItem(f"run-demo-{number}", "demo", f"T-{number}", action)


def listing(count: int) -> list[PendingItem]:
    """`count` requests in random expiry order, some sharing an expiry (the hash decides)."""
    shuffled = random.Random(15).sample(range(count), count)
    items = [item(number, 60 + expiry // 2) for number, expiry in enumerate(shuffled)]
    return sorted(items, key=expiry_order)


def follow(items: list[PendingItem], limit: int) -> list[list[PendingItem]]:
    pages, after = [], None
    while True:
        page = pending_page(items, position_of, limit, after)
        assert page.total == len(items)
        pages.append(page.items)
        if page.next is None:
            return pages
        after = page.next


def test_following_next_reaches_every_request_once_soonest_expiry_first() -> None:
    items = listing(60)
    pages = follow(items, 25)
    assert [len(page) for page in pages] == [25, 25, 10]
    seen = [entry for page in pages for entry in page]
    assert seen == items  # each once, in order
    expiries = [entry.action.expires_at for entry in seen]
    assert expiries == sorted(expiries)
    assert seen[0].action.expires_at == min(entry.action.expires_at for entry in items)


def test_a_full_last_page_has_no_next() -> None:
    assert [len(page) for page in follow(listing(50), 25)] == [25, 25]
    first = pending_page(listing(3), position_of, 25, None)
    assert first.next is None and first.first == 0 and first.total == 3


def test_a_request_decided_between_pages_makes_no_one_skip_or_repeat() -> None:
    items = listing(60)
    first = pending_page(items, position_of, 25, None)
    assert first.next is not None
    # The first page's last request is decided, and a new one arrives expiring soonest.
    meanwhile = sorted(
        [entry for entry in items if entry is not first.items[-1]] + [item(99, 1)],
        key=expiry_order,
    )
    second = pending_page(meanwhile, position_of, 25, first.next)
    assert second.items == items[25:50]
    assert second.first == 25  # the new request sits on the first page now


def test_cursors_of_another_kind_or_forged_are_refused() -> None:
    position = position_of(item(1, 60))
    assert cursor_position(pending_cursor(position)) == position
    forged = [
        "p1",
        "p1.!!!",
        "r1." + pending_cursor(position).partition(".")[2],  # a `signoff list` cursor kind
        encode_cursor("p1", b"not a date|" + b"a" * 64),
        encode_cursor("p1", NOW.replace(tzinfo=None).isoformat().encode() + b"|" + b"a" * 64),
        encode_cursor("p1", NOW.isoformat().encode() + b"|XYZ"),
        encode_cursor("p1", b"\xff\xfe"),
        "p1." + "A" * 3000,
    ]
    for cursor in forged:
        with pytest.raises(InvalidCursor, match="follow `next`"):
            pending_page(listing(3), position_of, 25, cursor)


def test_cursor_payload_round_trips_any_bytes() -> None:
    for payload in (b"", b"\x00\xff", bytes(range(256))):
        assert decode_cursor("r1", encode_cursor("r1", payload)) == payload


def test_the_summary_says_what_is_counted() -> None:
    assert pending_summary(0, 0, 0, 0) == "nothing is waiting for a decision"
    assert pending_summary(62, 60, 50, 12) == (
        "62 requests waiting for a decision (in 60 runs), soonest expiry first; 51-62 on this page"
    )
    assert pending_summary(1, 1, 0, 1).startswith("1 request waiting for a decision (in 1 run)")
