"""Pages of the inbox's read model on both backends, through the service every face
calls: soonest expiry first or largest amount first, the mode filter, exact counts, a
tenant's rows only, keyset cursors that survive a decision between pages, and cursors
of another order refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import Engine, delete

from activities.store import write_transaction
from activities.store.schema import WaitingAction
from activities.store.waiting_actions import new_row
from signoff.service.handles import Store
from signoff.service.inbox_order import InboxSort
from signoff.service.paging import InvalidCursor
from signoff.service.waiting_listing import read_pending_page
from tests.clock import clock_now
from tests.exposures import refund_exposure
from workflows.actions import ActionState, PendingAction

NOW = clock_now()
COUNT = 23  # demo's rows; globex gets 4


# Every 5th request is an MCP tool's whose argument is named `amount` (JSON text): it
# has no amount, and the amount order lists it after every refund.
VOUCHER_EVERY = 5
VOUCHER = {"customer_id": '"C-9"', "amount": '"15.00"'}


def an_action(index: int, tenant_id: str) -> PendingAction:
    state = ActionState(
        order_id="C-1", currency="EUR", paid_minor=90_000, review_threshold_minor=20_000
    )
    review = index % 3 == 0
    voucher = index % VOUCHER_EVERY == VOUCHER_EVERY - 1
    # Some amounts repeat, so that the hash breaks ties in the amount order too.
    refund = {"amount": f"{(index * 7) % 10 + 1}0.00", "currency": "EUR"}
    return PendingAction(
        action_hash=f"{tenant_id[0]}{index:063x}",
        tool_use_id=f"call-{index}",
        tool="shop__issue_voucher" if voucher else "refund",
        arguments=VOUCHER if voucher else refund,
        targets={"tenant_id": tenant_id, "order_id": "C-1"},
        reason="test",
        policy_version="test",
        state=state,
        state_hash="0" * 64,
        mode="review" if review else "confirm",
        required_approvals=2 if review else 1,
        requested_at=NOW,
        # Expiries repeat too (every 5th), and are not in index order.
        expires_at=NOW + timedelta(minutes=(index * 11) % 17),
        exposure=None if voucher else refund_exposure(refund["amount"], "C-1"),
    )


@pytest.fixture
def waiting(store: Engine) -> Engine:
    with write_transaction(store) as session:
        for tenant_id, count in (("demo", COUNT), ("globex", 4)):
            for index in range(count):
                action = an_action(index, tenant_id)
                run_id = f"run-{tenant_id}-{index // 2}"  # two actions a run, at most
                session.add(new_row(tenant_id, run_id, f"T-{index}", action, NOW))
    return store


def walk(store: Engine, sort: InboxSort, mode: str | None = None, limit: int = 5) -> list[str]:
    seen: list[str] = []
    after = None
    while True:
        listed = read_pending_page(Store(store), "demo", limit, after, sort, mode)  # type: ignore[arg-type]
        assert listed.page.first == len(seen)
        seen += [item.action.action_hash for item in listed.page.items]
        if listed.page.next is None:
            return seen
        after = listed.page.next


def minor(action: PendingAction) -> int:
    return int(action.arguments["amount"].replace(".", "")) if action.tool == "refund" else 0


def truth(sort: InboxSort, mode: str | None = None) -> list[str]:
    actions = [an_action(index, "demo") for index in range(COUNT)]
    chosen = [a for a in actions if mode is None or a.mode == mode]
    if sort == "amount":
        chosen.sort(key=lambda a: (a.tool != "refund", -minor(a), a.action_hash))
    else:
        chosen.sort(key=lambda a: (a.expires_at, a.action_hash))
    return [a.action_hash for a in chosen]


@pytest.mark.parametrize("sort", ["time_left", "amount"])
def test_following_next_lists_every_request_once_in_order(waiting: Engine, sort: InboxSort) -> None:
    assert walk(waiting, sort) == truth(sort)
    assert walk(waiting, sort, limit=2) == truth(sort)  # a cursor on each kind of row
    assert walk(waiting, sort, "review") == truth(sort, "review")


def test_counts_are_of_the_tenant_and_never_a_page(waiting: Engine) -> None:
    listed = read_pending_page(Store(waiting), "demo", 5, mode="review")
    assert listed.page.total == len(truth("time_left", "review"))
    assert (listed.waiting_all, listed.waiting_runs, listed.unread_runs) == (COUNT, 12, 0)
    assert {
        item.tenant_id for item in read_pending_page(Store(waiting), "demo", 100).page.items
    } == {"demo"}
    assert read_pending_page(Store(waiting), "globex", 100).page.total == 4
    operators_view = read_pending_page(Store(waiting), None, 100)
    assert operators_view.page.total == COUNT + 4


def test_a_request_decided_between_pages_makes_no_one_skip_or_repeat(waiting: Engine) -> None:
    first = read_pending_page(Store(waiting), "demo", 5)
    decided = first.page.items[-1]  # the cursor's own row goes
    with write_transaction(waiting) as session:
        session.execute(
            delete(WaitingAction).where(WaitingAction.action_hash == decided.action.action_hash)
        )
    second = read_pending_page(Store(waiting), "demo", 5, first.page.next)
    assert [item.action.action_hash for item in second.page.items] == truth("time_left")[5:10]


def test_a_cursor_of_the_other_order_or_forged_is_refused(waiting: Engine) -> None:
    by_time = read_pending_page(Store(waiting), "demo", 5).page.next
    by_amount = read_pending_page(Store(waiting), "demo", 5, sort="amount").page.next
    for sort, after in (("amount", by_time), ("time_left", by_amount), ("time_left", "p1.xx")):
        with pytest.raises(InvalidCursor):
            read_pending_page(Store(waiting), "demo", 5, after, sort)  # type: ignore[arg-type]
