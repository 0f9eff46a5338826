"""The refund path's round trips, counted: a ticket's order is one statement, not two.

Counted on SQLite with SQLAlchemy's `before_cursor_execute` event. The counts are what
the path needs today; a change that adds a round trip to every refund shows up here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event

from activities.store.database import make_engine
from activities.store.refunds import execute_refund, read_action_state
from activities.store.seed import seed_demo
from activities.store.tickets import get_order_for_ticket
from tests.store.commands import refund_command


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'signoff.db'}")
    seed_demo(engine)
    yield engine
    engine.dispose()


@contextmanager
def statements(engine: Engine) -> Iterator[list[str]]:
    seen: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        if not statement.startswith("BEGIN"):
            seen.append(" ".join(statement.split()))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def reads_tickets_alone(seen: list[str]) -> bool:
    return any(s.startswith("SELECT tickets.") and " JOIN " not in s for s in seen)


def test_the_order_of_a_ticket_is_one_joined_statement(sqlite_store: Engine) -> None:
    with statements(sqlite_store) as seen:
        order = get_order_for_ticket(sqlite_store, "demo", "T-2210")
    assert order is not None and order.id == "C-2210"
    assert len(seen) == 1 and " JOIN tickets " in seen[0]
    with statements(sqlite_store) as seen:
        assert get_order_for_ticket(sqlite_store, "demo", "T-9999") is None  # no order
        assert get_order_for_ticket(sqlite_store, "demo", "T-nope") is None  # no ticket
        assert get_order_for_ticket(sqlite_store, "globex", "T-2210") is None  # not theirs
    assert len(seen) == 3


def test_the_state_read_takes_three_statements(sqlite_store: Engine) -> None:
    with statements(sqlite_store) as seen:
        state = read_action_state(sqlite_store, "demo", "T-2210")
    assert state.order_id == "C-2210"
    # tenant, the ticket's order, the refunded sum
    assert len(seen) == 3 and not reads_tickets_alone(seen)


def test_a_refund_takes_twelve_statements(sqlite_store: Engine) -> None:
    command = refund_command(sqlite_store, key="k-count", amount_minor=1000)
    with statements(sqlite_store) as seen:
        result = execute_refund(sqlite_store, command)
    assert result.status == "refunded"
    # tenant, the ticket's order (locked), the key, the settlement, the refunded sum,
    # the approvers, the ledger row, the hold's release, then the audit: the tenant's
    # chain lock, the event key, the chain head, the audit row.
    assert not reads_tickets_alone(seen)
    assert len(seen) == 12, "\n".join(seen)
