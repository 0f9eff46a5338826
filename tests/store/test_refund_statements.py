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

from activities.store.ledger_reads import OrderFacts, order_of_ticket
from activities.store.refunds import execute_refund, read_action_state
from activities.tool_gateway import get_ticket_order, read_ticket
from tests.conftest import fresh_demo_store
from tests.store.commands import refund_command
from workflows.contracts import ToolCallInput


@pytest.fixture
def sqlite_store(tmp_path: Path, demo_store_template: Path) -> Iterator[Engine]:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
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


def order_for(engine: Engine, tenant_id: str, ticket_id: str) -> OrderFacts | None:
    with engine.connect() as connection:
        return order_of_ticket(connection, tenant_id, ticket_id)


def test_the_order_of_a_ticket_is_one_joined_statement(sqlite_store: Engine) -> None:
    with statements(sqlite_store) as seen:
        order = order_for(sqlite_store, "demo", "T-2210")
    assert order is not None and order.id == "C-2210"
    assert len(seen) == 1 and " JOIN tickets " in seen[0]
    with statements(sqlite_store) as seen:
        assert order_for(sqlite_store, "demo", "T-9999") is None  # no order
        assert order_for(sqlite_store, "demo", "T-nope") is None  # no ticket
        assert order_for(sqlite_store, "globex", "T-2210") is None  # not theirs
    assert len(seen) == 3


def test_each_shop_tool_reads_with_one_statement(sqlite_store: Engine) -> None:
    def call(ticket_id: str, tenant_id: str = "demo") -> ToolCallInput:
        return ToolCallInput(
            run_id="run-demo-x",
            tenant_id=tenant_id,
            ticket_id=ticket_id,
            tool_use_id="toolu_1",
            name="",
            arguments={},
            idempotency_key="k",
        )

    with statements(sqlite_store) as seen:
        ticket = read_ticket(sqlite_store, call("T-2210"))
        order = get_ticket_order(sqlite_store, call("T-2210"))
        no_order = get_ticket_order(sqlite_store, call("T-9999"))
    assert '"ticket_id": "T-2210"' in ticket and '"order_id": "C-2210"' in order
    assert '"found": false' in no_order
    assert len(seen) == 3 and " JOIN orders " in seen[1]


def test_the_state_read_takes_three_statements(sqlite_store: Engine) -> None:
    with statements(sqlite_store) as seen:
        state = read_action_state(sqlite_store, "demo", "T-2210")
    assert state.order_id == "C-2210"
    # tenant, the ticket's order, the refunded sum
    assert len(seen) == 3 and not reads_tickets_alone(seen)


def test_a_refund_takes_fifteen_statements(sqlite_store: Engine) -> None:
    command = refund_command(sqlite_store, key="k-count", amount_minor=1000)
    with statements(sqlite_store) as seen:
        result = execute_refund(sqlite_store, command)
    assert result.status == "refunded"
    # tenant, the ticket's order (locked), the key, the settlement, the refunded sum,
    # the approvers, the ledger row, the hold's release, then the audit: the tenant's
    # chain lock, the event key, the chain head, the audit row; then the insight's day
    # (insight_days.py): its row read and, as the day's first row here, the day summed
    # from the audit and its row written (a later append of the day updates it: two).
    assert not reads_tickets_alone(seen)
    assert len(seen) == 15, "\n".join(seen)
    assert [statement.split()[0] for statement in seen[-3:]] == ["SELECT", "SELECT", "INSERT"]
