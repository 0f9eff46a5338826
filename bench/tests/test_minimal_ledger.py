"""The minimal baseline's refund, written with `sqlite3` alone, lands on signoff's own
ledger as signoff's reads it, once per key, and never past the amount paid."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from activities.store import make_engine, seed_demo
from activities.store.refunds import list_refunds
from bench.runs.minimal_activities import MinimalShop, scripted_reply
from bench.runs.minimal_workflow import RefundOrder
from testkit.refund_cases import PAID_MINOR, add_refund_cases


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[str, Engine]]:
    url = f"sqlite:///{tmp_path / 'signoff.db'}"
    engine = make_engine(url)
    seed_demo(engine)
    yield url, engine
    engine.dispose()


def order_of(url: str) -> RefundOrder:
    (ticket,) = add_refund_cases(url, "demo", 1)
    return RefundOrder(
        tenant_id="demo",
        order_id=ticket.removeprefix("T-"),
        amount_minor=PAID_MINOR,
        currency="EUR",
        run_id="minimal-1",
        action_hash="a" * 64,
        approver="alice",
        reason="Damaged in transit.",
    )


def test_a_refund_is_a_row_signoffs_store_reads(store: tuple[str, Engine]) -> None:
    url, engine = store
    order = order_of(url)

    answer = MinimalShop(url).refund(order)

    (row,) = list_refunds(engine, "demo", order.order_id)
    assert answer == {"status": "refunded", "refund_id": row.id}
    assert (row.amount_minor, row.currency, row.approver_list) == (PAID_MINOR, "EUR", ["alice"])
    assert row.created_at.tzinfo is not None


def test_the_same_action_again_finds_its_row(store: tuple[str, Engine]) -> None:
    url, engine = store
    order = order_of(url)
    shop = MinimalShop(url)

    first, again = shop.refund(order), shop.refund(order)

    assert first == again
    assert len(list_refunds(engine, "demo", order.order_id)) == 1


def test_a_second_action_past_the_amount_paid_is_refused(store: tuple[str, Engine]) -> None:
    url, engine = store
    order = order_of(url)
    shop = MinimalShop(url)
    shop.refund(order)

    answer = shop.refund(replace(order, action_hash="b" * 64, amount_minor=1))

    assert answer["status"] == "refused"
    assert len(list_refunds(engine, "demo", order.order_id)) == 1


def test_the_scripted_agent_takes_four_turns_and_refunds_what_was_paid() -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Ticket T-1."}]
    tools = []
    for result in ['{"order_id": "O-1"}', '{"amount_paid_minor": 6000}', '{"status": "refunded"}']:
        reply = scripted_reply(messages)
        tools.append((reply.tool, dict(reply.arguments)))
        messages += [
            {"role": "assistant", "content": reply.text, "tool": reply.tool},
            {"role": "user", "content": result},
        ]
    answer = scripted_reply(messages)

    assert [tool for tool, _ in tools] == ["read_ticket", "get_order", "refund"]
    assert tools[2][1]["amount_minor"] == "6000"
    assert (answer.tool, answer.text) == (None, "Your refund is refunded.")
