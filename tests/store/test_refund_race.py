"""Twenty concurrent full refunds of one order: exactly one lands, on both backends, and
on a PostgreSQL whose default isolation is REPEATABLE READ (without the refund's own
READ COMMITTED, 15 of 20 landed there: the totals were read from a snapshot older than
the lock).

Each thread has its own idempotency key (twenty different runs) and the state hash read
before the race, as twenty approvals given on the same state would carry. A barrier
releases them together.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import Engine

from activities.store.database import make_engine
from activities.store.refunds import execute_refund, list_refunds, read_action_state
from activities.store.schema import Base
from activities.store.seed import seed_demo
from tests.store.commands import refund_command
from tests.store.conftest import BACKENDS
from workflows.actions import RefundCommand, RefundResult
from workflows.approval_policy import state_hash

CONTENDERS = 20
FULL_AMOUNT_MINOR = 4500  # order C-2210


@pytest.fixture(
    params=[*BACKENDS, pytest.param("postgresql-repeatable-read", marks=pytest.mark.postgres)]
)
def race_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """The store on each backend, and on a PostgreSQL whose default isolation is
    REPEATABLE READ: the refund must set its own isolation, not inherit the server's."""
    if request.param == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path / 'signoff.db'}")
    else:
        fixture = (
            "postgres_url" if request.param == "postgresql" else "postgres_repeatable_read_url"
        )
        engine = make_engine(request.getfixturevalue(fixture))
        Base.metadata.drop_all(engine)
        Base.metadata.create_all(engine)
    seed_demo(engine)
    yield engine
    engine.dispose()


def test_the_repeatable_read_database_really_defaults_to_it(
    postgres_repeatable_read_url: str,
) -> None:
    # Without this, the parameter below could test READ COMMITTED twice.
    engine = make_engine(postgres_repeatable_read_url)
    try:
        with engine.connect() as connection:
            level = connection.exec_driver_sql("SHOW default_transaction_isolation").scalar()
    finally:
        engine.dispose()
    assert level == "repeatable read"


def test_twenty_concurrent_full_refunds_make_one(race_store: Engine) -> None:
    store = race_store
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
