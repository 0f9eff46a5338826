from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from sqlalchemy import Engine, func, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from activities.store import tickets
from activities.store.errors import (
    EmptyTicketText,
    StoreError,
    TicketTextTooLong,
    UnknownOrder,
    UnknownTenant,
)
from activities.store.schema import Order, Reviewer, Tenant, Ticket, decimal_to_minor
from activities.store.seed import seed_demo
from activities.store.tickets import (
    MAX_TICKET_TEXT_CHARS,
    add_ticket,
    get_order,
    get_ticket,
    tenant_exists,
)


def _count(engine: Engine, model: type[Tenant | Order | Ticket | Reviewer]) -> int:
    with Session(engine) as session:
        return session.scalar(select(func.count()).select_from(model)) or 0


def test_sqlite_pragmas_are_on(engine: Engine) -> None:
    with engine.connect() as connection:
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"


def test_seed_twice_creates_nothing_the_second_time(engine: Engine) -> None:
    first = seed_demo(engine)
    second = seed_demo(engine)

    assert "ticket demo/T-1042" in first.created
    assert first.already_present == ()
    assert second.created == ()
    assert sorted(second.already_present) == sorted(first.created)
    counts = [_count(engine, model) for model in (Tenant, Order, Ticket, Reviewer)]
    assert counts == [2, 5, 6, 5]


def test_money_is_exact(seeded: Engine) -> None:
    order = get_order(seeded, "demo", "C-1042")
    assert order is not None
    assert order.amount_paid_minor == 8990
    assert order.amount_paid == Decimal("89.90")
    assert str(order.amount_paid) == "89.90"
    with Session(seeded) as session:
        tenant = session.get(Tenant, "demo")
        assert tenant is not None
        assert tenant.refund_review_threshold == Decimal("200.00")


def test_sub_cent_amount_is_refused() -> None:
    with pytest.raises(ValueError):
        decimal_to_minor(Decimal("1.005"))


def test_ticket_without_order_and_created_at_is_utc(seeded: Engine) -> None:
    ticket = get_ticket(seeded, "demo", "T-9999")
    assert ticket is not None
    assert ticket.order_id is None
    assert "9999" in ticket.text
    assert ticket.created_at.tzinfo == UTC


def test_add_ticket_returns_a_readable_id(seeded: Engine) -> None:
    ticket_id = add_ticket(seeded, "demo", "4512", "Still nothing.", customer_name="Sam Lee")

    assert ticket_id.startswith("T-") and len(ticket_id) == 8
    assert ticket_id[2:] == ticket_id[2:].upper()
    stored = get_ticket(seeded, "demo", ticket_id)
    assert stored is not None
    assert (stored.order_id, stored.text, stored.customer_name) == (
        "4512",
        "Still nothing.",
        "Sam Lee",
    )


def test_add_ticket_without_order(seeded: Engine) -> None:
    ticket_id = add_ticket(seeded, "demo", None, "A question.")
    stored = get_ticket(seeded, "demo", ticket_id)
    assert stored is not None and stored.order_id is None
    assert stored.customer_name == "unknown"


def test_add_ticket_retries_on_collision(seeded: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    candidates = iter(["T-1042", "T-4512", "T-ABC123"])
    monkeypatch.setattr(tickets, "new_ticket_id", lambda: next(candidates))
    assert add_ticket(seeded, "demo", None, "Hello") == "T-ABC123"


def test_add_ticket_gives_up_after_repeated_collisions(
    seeded: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tickets, "new_ticket_id", lambda: "T-1042")
    with pytest.raises(StoreError, match="free ticket id"):
        add_ticket(seeded, "demo", None, "Hello")


def test_unknown_tenant(seeded: Engine) -> None:
    with pytest.raises(UnknownTenant, match="signoff seed"):
        add_ticket(seeded, "nobody", None, "Hello")
    assert not tenant_exists(seeded, "nobody")
    assert tenant_exists(seeded, "demo")


def test_unknown_order(seeded: Engine) -> None:
    with pytest.raises(UnknownOrder, match="'9999'"):
        add_ticket(seeded, "demo", "9999", "Hello")


def test_order_of_another_tenant_is_unknown(seeded: Engine) -> None:
    with pytest.raises(UnknownOrder) as caught:
        add_ticket(seeded, "demo", "G-7001", "Hello")
    assert "globex" not in str(caught.value)


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_text(seeded: Engine, text: str) -> None:
    with pytest.raises(EmptyTicketText):
        add_ticket(seeded, "demo", None, text)


def test_text_too_long(seeded: Engine) -> None:
    add_ticket(seeded, "demo", None, "x" * MAX_TICKET_TEXT_CHARS)
    with pytest.raises(TicketTextTooLong, match=str(MAX_TICKET_TEXT_CHARS)):
        add_ticket(seeded, "demo", None, "x" * (MAX_TICKET_TEXT_CHARS + 1))


def test_database_refuses_a_ticket_on_another_tenants_order(seeded: Engine) -> None:
    # The composite foreign key is the last line of defence behind add_ticket's checks.
    with pytest.raises(IntegrityError), Session(seeded) as session, session.begin():
        session.add(
            Ticket(
                tenant_id="demo",
                id="T-CROSS",
                order_id="G-7001",
                customer_name="x",
                text="x",
                created_at=datetime.now(UTC),
            )
        )


def test_get_tickets_reads_the_tenants_tickets_in_one_call(seeded: Engine) -> None:
    found = tickets.get_tickets(seeded, "demo", ["T-1042", "T-4512", "T-7001", "T-0000"])
    assert sorted(found) == ["T-1042", "T-4512"]  # T-7001 is globex's; T-0000 is nobody's
    assert found["T-1042"].order_id == "C-1042"
    assert tickets.get_tickets(seeded, "demo", []) == {}
