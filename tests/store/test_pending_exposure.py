"""The pending part of an order's exposure, on both backends: what a hold counts, when a
hold stops counting, and that holds made at once each count the ones before them."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

import pytest
from sqlalchemy import Engine

from activities.store.errors import UnknownOrder
from activities.store.pending_refunds import (
    hold_pending_refund,
    pending_minor,
    release_pending_refund,
)
from activities.store.refunds import execute_refund
from tests.clock import clock_now
from tests.store.commands import ACTION_HASH, refund_command
from tests.store.holds import list_pending_refunds
from workflows.actions import PendingRefundHold, PendingRefundRelease

NOW = clock_now()
LATER = NOW + timedelta(hours=24)
CONTENDERS = 8


def a_hold(
    action: str,
    amount_minor: int = 15_500,
    *,
    run_id: str | None = None,
    order_id: str = "C-3107",
    expires_at: datetime = LATER,
    supersedes: str | None = None,
) -> PendingRefundHold:
    return PendingRefundHold(
        run_id=run_id or f"run-{action}",
        tenant_id="demo",
        order_id=order_id,
        action_hash=action * 64 if len(action) == 1 else action,
        amount_minor=amount_minor,
        expires_at=expires_at,
        supersedes=supersedes,
    )


def held(store: Engine, hold: PendingRefundHold, now: datetime = NOW) -> int:
    return hold_pending_refund(store, hold, now=now).pending_minor


def test_a_hold_counts_the_others_and_not_itself(store: Engine) -> None:
    assert held(store, a_hold("a")) == 0
    assert held(store, a_hold("b")) == 15_500
    assert held(store, a_hold("c", 10_000)) == 31_000
    # A retried activity writes nothing twice and still leaves itself out.
    assert held(store, a_hold("a")) == 25_500
    assert pending_minor(store, "demo", "C-3107", NOW) == 41_000
    # Other orders are other exposures.
    assert held(store, a_hold("d", order_id="C-1042")) == 0


def test_expired_holds_count_for_nothing_and_are_swept(store: Engine) -> None:
    held(store, a_hold("a", expires_at=NOW + timedelta(hours=1)))
    held(store, a_hold("b", expires_at=NOW + timedelta(hours=3)))
    two_hours_on = NOW + timedelta(hours=2)
    assert held(store, a_hold("c"), now=two_hours_on) == 15_500  # only b
    assert list_pending_refunds(store, "demo", "C-3107") == ["b" * 64, "c" * 64]


def test_only_the_run_that_held_an_action_releases_it(store: Engine) -> None:
    held(store, a_hold("a"))
    release_pending_refund(store, PendingRefundRelease(run_id="run-x", action_hash="a" * 64))
    assert pending_minor(store, "demo", "C-3107", NOW) == 15_500
    release_pending_refund(store, PendingRefundRelease(run_id="run-a", action_hash="a" * 64))
    release_pending_refund(store, PendingRefundRelease(run_id="run-a", action_hash="a" * 64))
    assert pending_minor(store, "demo", "C-3107", NOW) == 0


def test_the_action_that_supersedes_another_takes_its_hold(store: Engine) -> None:
    held(store, a_hold("a"))
    assert held(store, a_hold("b", run_id="run-a", supersedes="a" * 64)) == 0
    assert list_pending_refunds(store, "demo", "C-3107") == ["b" * 64]


def test_the_refund_turns_its_hold_into_a_ledger_row_in_one_commit(store: Engine) -> None:
    held(store, a_hold(ACTION_HASH, 2000, run_id="run-1", order_id="C-2210"))
    held(store, a_hold("b", 1000, order_id="C-2210"))
    command = refund_command(store, key="run-1:refund", amount_minor=2000)
    assert execute_refund(store, command).status == "refunded"
    assert list_pending_refunds(store, "demo", "C-2210") == ["b" * 64]


def test_a_hold_on_an_order_that_is_not_there_is_refused(store: Engine) -> None:
    with pytest.raises(UnknownOrder):
        held(store, a_hold("a", order_id="G-7001"))  # globex's order, not demo's


def test_holds_made_at_once_each_count_the_ones_before_them(store: Engine) -> None:
    """Serialized per order: the sums seen are 0, 155, 310, ... in some order, never two
    equal (two equal sums would be two runs judging on the same exposure)."""
    start = threading.Barrier(CONTENDERS)

    def contend(index: int) -> int:
        start.wait()
        return held(store, a_hold(f"{index:064x}", run_id=f"run-{index}"))

    with ThreadPoolExecutor(max_workers=CONTENDERS) as pool:
        seen = list(pool.map(contend, range(CONTENDERS)))

    assert sorted(seen) == [15_500 * index for index in range(CONTENDERS)]
    assert pending_minor(store, "demo", "C-3107", NOW) == 15_500 * CONTENDERS
