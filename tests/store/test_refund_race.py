"""Twenty concurrent full refunds of one order: exactly one lands, on both backends.

Each thread has its own idempotency key (twenty different runs) and the state hash read
before the race, as twenty approvals given on the same state would carry. A barrier
releases them together.
"""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import Engine

from activities.store.refunds import execute_refund, list_refunds, read_action_state
from tests.store.commands import refund_command
from workflows.actions import RefundCommand, RefundResult
from workflows.approval_policy import state_hash

CONTENDERS = 20
FULL_AMOUNT_MINOR = 4500  # order C-2210


def test_twenty_concurrent_full_refunds_make_one(store: Engine) -> None:
    expected = state_hash(read_action_state(store, "demo", "T-2210"))
    commands = [
        refund_command(
            store,
            key=f"run-{index}/refund-1",
            amount_minor=FULL_AMOUNT_MINOR,
            expected_state_hash=expected,
        )
        for index in range(CONTENDERS)
    ]
    start = threading.Barrier(CONTENDERS)

    def contend(command: RefundCommand) -> RefundResult:
        start.wait()
        return execute_refund(store, command)

    with ThreadPoolExecutor(max_workers=CONTENDERS) as pool:
        results = list(pool.map(contend, commands))

    statuses = Counter(result.status for result in results)
    assert statuses["refunded"] == 1, statuses
    assert statuses["state_changed"] + statuses["refused"] == CONTENDERS - 1
    losers = [result for result in results if result.status != "refunded"]
    assert all("Nothing was refunded" in result.message for result in losers)
    [row] = list_refunds(store, "demo", "C-2210")
    [winner] = [result for result in results if result.status == "refunded"]
    assert row.id == winner.refund_id
    state = read_action_state(store, "demo", "T-2210")
    assert state.refunded_minor == state.paid_minor == FULL_AMOUNT_MINOR
