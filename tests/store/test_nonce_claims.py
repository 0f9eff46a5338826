"""A decision's nonce counts once, even when two claims race (on SQLite and PostgreSQL).

Two claims that both read "unused" before either writes: on SQLite `BEGIN IMMEDIATE`
queues the second behind the first, which it then finds; on PostgreSQL both reach the
INSERT, the unique key lets one commit and the other's IntegrityError sends it to read
the winner's claim (`decision_nonces.claim_nonce`). Either way the same update gets its
claim back (a local activity's attempt that timed out while it still ran) and another
update is refused (a replayed decision).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event, select

from activities.store.decision_nonces import NONCES, claim_nonce
from tests.clock import clock_now

RUN = "run-demo-race"


WAIT_SECONDS = 10.0


def wait_for(condition: Callable[[], bool], what: str) -> None:
    """Poll with sleeps, never with a lock's timeout: under `make test-calendar`'s faked
    monotonic clock a timed lock wait does not expire (docs/development/tests.md)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"the race never reached its point: {what}")
        time.sleep(0.005)


@contextmanager
def both_read_before_either_writes(engine: Engine) -> Iterator[None]:
    """Hold each claim's INSERT until the other claim is under way. On PostgreSQL both
    reach their INSERT, having both read "unused". On SQLite the second never can: its
    `BEGIN IMMEDIATE` waits for the first's write lock, so the first writes once the
    second has begun, and the second then reads the first's claim."""
    seen = {"begin": 0, "insert": 0}
    lock = threading.Lock()
    sqlite = engine.dialect.name == "sqlite"

    def hold(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        kind = "begin" if statement.startswith("BEGIN") else "insert"
        if kind == "insert" and not statement.startswith("INSERT INTO decision_nonces"):
            return
        with lock:
            seen[kind] += 1
        if kind == "insert" and sqlite:
            wait_for(lambda: seen["begin"] >= 2, "both claims began")
        elif kind == "insert":
            wait_for(lambda: seen["insert"] >= 2, "both claims read before writing")

    event.listen(engine, "before_cursor_execute", hold)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", hold)


def race(engine: Engine, nonce: str, updates: tuple[str, str]) -> list[bool]:
    def claim(update_id: str) -> bool:
        return claim_nonce(
            engine,
            nonce=nonce,
            run_id=RUN,
            update_id=update_id,
            reviewer_id="alice",
            at=clock_now(),
        )

    with both_read_before_either_writes(engine), ThreadPoolExecutor(2) as pool:
        return list(pool.map(claim, updates))


def claims(engine: Engine, nonce: str) -> list[str]:
    with engine.connect() as connection:
        rows = connection.execute(select(NONCES.c.update_id).where(NONCES.c.nonce == nonce))
        return [row.update_id for row in rows]


def test_two_updates_racing_for_one_nonce_claim_it_once(store: Engine) -> None:
    results = race(store, "n-two-updates", ("update-1", "update-2"))

    assert sorted(results) == [False, True]
    (winner,) = claims(store, "n-two-updates")
    assert results[("update-1", "update-2").index(winner)] is True


def test_one_update_racing_itself_gets_its_claim_back_twice(store: Engine) -> None:
    assert race(store, "n-one-update", ("update-1", "update-1")) == [True, True]
    assert claims(store, "n-one-update") == ["update-1"]
