"""The inbox arranged as a reviewer asks (signoff/service/inbox_order.py): by time left
(the default) or by amount, largest first, filtered by mode, in pages whose cursors
never skip nor repeat a request, and belong to their order."""

from __future__ import annotations

from dataclasses import replace

import pytest

from signoff.service.inbox_order import amount_minor, arranged_page
from signoff.service.paging import InvalidCursor
from signoff.service.pending import PendingItem, expiry_order
from tests.unit.test_pending_pages import item

AMOUNTS = ["10.00", "250.00", "60.00", "250.00", "5.50", "999.99", "60.00"]


def requests() -> list[PendingItem]:
    made = []
    for number, amount in enumerate(AMOUNTS):
        base = item(number, expires_in_minutes=60 + 7 * ((number * 3) % len(AMOUNTS)))
        mode = "review" if amount_minor_of(amount) > 20_000 else "confirm"
        action = base.action.model_copy(
            update={
                "arguments": {"amount": amount, "currency": "EUR"},
                "mode": mode,
                "required_approvals": 2 if mode == "review" else 1,
            }
        )
        made.append(replace(base, action=action))
    return sorted(made, key=expiry_order)


def amount_minor_of(amount: str) -> int:
    return int(amount.replace(".", ""))


def follow(items: list[PendingItem], sort: str, mode: str | None, limit: int) -> list[PendingItem]:
    seen: list[PendingItem] = []
    after = None
    while True:
        page = arranged_page(items, sort, mode, limit, after)  # type: ignore[arg-type]
        seen += page.items
        if page.next is None:
            return seen
        after = page.next


def test_time_left_is_the_default_order() -> None:
    items = requests()
    assert follow(items, "time_left", None, 2) == items


@pytest.mark.parametrize("limit", [1, 2, 3, 50])
def test_amount_puts_the_largest_first_and_pages_never_skip_nor_repeat(limit: int) -> None:
    seen = follow(requests(), "amount", None, limit)
    amounts = [amount_minor(entry) for entry in seen]
    assert amounts == sorted(amounts, reverse=True)
    assert sorted(entry.action.action_hash for entry in seen) == sorted(
        entry.action.action_hash for entry in requests()
    )


def test_the_mode_filter_keeps_only_that_mode_and_counts_it() -> None:
    page = arranged_page(requests(), "amount", "review", 50, None)
    assert page.total == 3 and {entry.action.mode for entry in page.items} == {"review"}
    confirm = arranged_page(requests(), "time_left", "confirm", 50, None)
    assert confirm.total == len(AMOUNTS) - 3


def test_a_cursor_of_one_order_is_refused_by_the_other() -> None:
    by_time = arranged_page(requests(), "time_left", None, 2, None).next
    by_amount = arranged_page(requests(), "amount", None, 2, None).next
    assert by_time and by_amount
    with pytest.raises(InvalidCursor):
        arranged_page(requests(), "amount", None, 2, by_time)
    with pytest.raises(InvalidCursor):
        arranged_page(requests(), "time_left", None, 2, by_amount)
