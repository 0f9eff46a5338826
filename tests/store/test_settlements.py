"""Settling a refund whose outcome is unknown: the ledger's answer, recorded and final."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import Engine

from activities.store.refunds import execute_refund, list_refunds
from activities.store.settlements import SettledRefund, settle_refund
from tests.store.commands import ACTION_HASH, refund_command

RACES = 10


def settle(store: Engine, key: str) -> SettledRefund:
    return settle_refund(
        store,
        tenant_id="demo",
        run_id="run-1",
        order_id="C-2210",
        action_hash=ACTION_HASH,
        idempotency_key=key,
    )


def test_a_refund_settled_as_not_made_can_no_longer_happen(store: Engine) -> None:
    first = settle(store, "run-1:refund:a")
    late = execute_refund(store, refund_command(store, key="run-1:refund:a", amount_minor=1000))
    again = settle(store, "run-1:refund:a")

    assert (first.outcome, first.refund_id) == ("not_refunded", None)
    assert late.status == "refused"
    assert "settled as not made" in late.message
    assert list_refunds(store, "demo", "C-2210") == []
    assert (again.outcome, again.settled_at) == (first.outcome, first.settled_at)


def test_a_refund_that_committed_is_settled_as_made(store: Engine) -> None:
    done = execute_refund(store, refund_command(store, key="run-1:refund:b", amount_minor=1000))
    settled = settle(store, "run-1:refund:b")

    assert done.status == "refunded"
    assert (settled.outcome, settled.refund_id) == ("refunded", done.refund_id)
    assert settled.approvers == ("alice",)
    assert settled.refunded_at is not None


def race_once(store: Engine, key: str) -> tuple[SettledRefund, bool]:
    """One refund and one settlement of the same key, released together."""
    command = refund_command(store, key=key, amount_minor=100)
    start = threading.Barrier(2)

    def refund() -> object:
        start.wait()
        return execute_refund(store, command)

    def settling() -> SettledRefund:
        start.wait()
        return settle(store, key)

    with ThreadPoolExecutor(max_workers=2) as pool:
        refunding = pool.submit(refund)
        settled = pool.submit(settling).result()
        refunding.result()
    landed = any(row.idempotency_key == key for row in list_refunds(store, "demo", "C-2210"))
    return settled, landed


def test_settling_and_refunding_at_once_agree(store: Engine) -> None:
    # Whichever commits first, the settlement and the ledger tell the same story.
    for race in range(RACES):
        settled, landed = race_once(store, f"run-{race}:refund:c")
        assert settled.happened == landed, (race, settled)
