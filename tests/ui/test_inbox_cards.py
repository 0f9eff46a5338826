"""The inbox's cards and the batch pages say what support needs to decide, from the store's
read model and the tickets (no Temporal): the customer's name, the amount, what the order
paid and what was refunded before, and on the batch page each customer's own words,
boxed and marked unverified; no hash on the batch page nor on its outcomes. The tickets
of a page are read in one query, however many requests it holds, and only in the
reviewer's tenant."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine, event

from activities.store import make_engine, write_transaction
from activities.store.schema import Ticket
from activities.store.waiting_actions import new_row
from approvals_ui.main import create_app
from approvals_ui.templating import short_hash
from signoff.config.settings import Settings
from signoff.service.handles import Store
from tests.conftest import fresh_demo_store
from tests.ui.test_waiting_tenants import action, sign_in, unreachable_connect
from workflows.actions import PendingAction

FRENCH = {"Accept-Language": "fr"}
PAID_MINOR, REFUNDED_MINOR = 9000, 3000  # 90.00 EUR paid, 30.00 EUR refunded before
FEW, MANY = 3, 30
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
TICKETS_READ = re.compile(r"\bFROM tickets\b")


def customer_of(index: int) -> str:
    return f"Customer Number {index}"


def words_of(tenant_id: str, index: int) -> str:
    return f"{tenant_id} ticket {index}: the lamp arrived broken, please refund me."


def run_of(tenant_id: str, index: int) -> str:
    return f"run-{tenant_id}-card{index}"


def waiting(tenant_id: str, index: int) -> PendingAction:
    """A refund judged on an order that paid 90.00 EUR and had 30.00 EUR refunded,
    with an hour and `index` minutes left (the inbox lists them in that order)."""
    judged = action(tenant_id, index)
    books = judged.state.model_copy(
        update={"paid_minor": PAID_MINOR, "refunded_minor": REFUNDED_MINOR}
    )
    expires_at = datetime.now(UTC) + timedelta(hours=1, minutes=index)
    return judged.model_copy(update={"state": books, "expires_at": expires_at})


def fill(engine: Engine, tenant_id: str, count: int) -> None:
    """`count` waiting refunds of the tenant, each on a ticket of its own; the same
    ticket ids in every tenant, with each tenant's own words and names."""
    with write_transaction(engine) as session:
        for index in range(count):
            ticket_id = f"T-CARD-{index}"
            session.add(
                Ticket(
                    tenant_id=tenant_id,
                    id=ticket_id,
                    order_id=None,
                    # Intake writes "unknown" when it was not told who wrote: not a name.
                    customer_name="unknown" if index == 1 else f"{customer_of(index)} {tenant_id}",
                    text=words_of(tenant_id, index),
                    created_at=datetime.now(UTC),
                )
            )
            pending = waiting(tenant_id, index)
            session.add(
                new_row(
                    tenant_id, run_of(tenant_id, index), ticket_id, pending, pending.requested_at
                )
            )


@contextmanager
def inbox_app(
    template: Path, home: Path, demo_count: int
) -> Iterator[tuple[TestClient, list[str]]]:
    """The UI on a seeded store with `demo_count` waiting refunds of demo and 2 of globex,
    signed in as alice (demo), and the SQL statements it runs, as it runs them; the
    store a copy of the demo store `template` (tests/conftest.py)."""
    engine = fresh_demo_store(template, home / "signoff.db")
    fill(engine, "demo", demo_count)
    fill(engine, "globex", 2)
    statements: list[str] = []

    def record(*args: Any) -> None:
        statements.append(args[2])  # (connection, cursor, statement, ...)

    event.listen(engine, "before_cursor_execute", record)
    app = create_app(
        Settings(home=home), temporal_connect=unreachable_connect, engine=Store(engine)
    )
    try:
        with TestClient(app, follow_redirects=False) as client:
            sign_in(client, "alice")
            yield client, statements
    finally:
        event.remove(engine, "before_cursor_execute", record)
        engine.dispose()


def card_of(page: str, run_id: str) -> str:
    return page.split(f'data-run-id="{run_id}"')[1].split("</li>")[0]


def plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_an_inbox_card_names_the_customer_and_the_orders_figures(
    tmp_path: Path, demo_store_template: Path
) -> None:
    with inbox_app(demo_store_template, tmp_path, FEW) as (ui, _):
        page = ui.get("/approvals").text
        french = ui.get("/approvals", headers=FRENCH).text
    card = card_of(page, run_of("demo", 0))
    assert "Refund 10.00 EUR on order X-1" in plain(card)  # the amount, in its title
    assert '<dt>Customer</dt><dd class="customer"><bdi>Customer Number 0 demo</bdi></dd>' in card
    assert '<dt>Paid</dt><dd class="paid">90.00 EUR</dd>' in card
    assert '<dt>Refunded before</dt><dd class="refunded-before">30.00 EUR</dd>' in card
    # A ticket whose intake was not told who wrote names nobody; its figures still show.
    unnamed = card_of(page, run_of("demo", 1))
    assert "Customer<" not in unnamed and "unknown" not in unnamed
    assert "90.00 EUR" in unnamed
    # Each card its own ticket's name, and never globex's of the same ticket id.
    assert "Customer Number 2 demo" in card_of(page, run_of("demo", 2))
    assert "globex" not in page
    french_card = card_of(french, run_of("demo", 0))
    assert "<dt>Client</dt>" in french_card and "<dt>Payé</dt>" in french_card
    assert "90,00" in french_card and "30,00" in french_card


def test_a_card_without_an_order_shows_no_figures(
    tmp_path: Path, demo_store_template: Path
) -> None:
    with inbox_app(demo_store_template, tmp_path, 1) as (ui, _):
        engine = make_engine(f"sqlite:///{tmp_path / 'signoff.db'}")
        pending = action("demo", 5).model_copy(
            update={
                "tool": "send_reply",
                "arguments": {"text": "Hello"},
                "exposure": None,
                "state": action("demo", 5).state.model_copy(
                    update={"order_id": None, "currency": None, "paid_minor": 0}
                ),
            }
        )
        with write_transaction(engine) as session:
            session.add(
                new_row("demo", "run-demo-reply", "T-CARD-0", pending, pending.requested_at)
            )
        engine.dispose()
        card = card_of(ui.get("/approvals").text, "run-demo-reply")
    assert "Customer Number 0 demo" in card  # its ticket's customer
    assert "Paid" not in card and "Refunded before" not in card and "None" not in card


def test_a_page_of_the_inbox_reads_its_tickets_in_one_query(
    tmp_path: Path, demo_store_template: Path
) -> None:
    """No query per card: the few and the many cost the same statements."""
    counts = {}
    for size in (FEW, MANY):
        home = tmp_path / str(size)
        home.mkdir()
        with inbox_app(demo_store_template, home, size) as (ui, statements):
            ui.get("/approvals")  # a first page warms what is read once (the session's)
            statements.clear()
            page = ui.get("/approvals").text
            assert page.count('class="card') >= min(size, FEW)
            tickets = [sql for sql in statements if TICKETS_READ.search(sql)]
            assert len(tickets) == 1, tickets
            statements.clear()
            ui.get("/approvals/rows")  # the list's poll, as htmx asks it
            assert len([sql for sql in statements if TICKETS_READ.search(sql)]) == 1
            counts[size] = len(statements)
    assert counts[FEW] == counts[MANY], counts


def test_the_batch_page_shows_each_customers_words_and_no_hash(
    tmp_path: Path, demo_store_template: Path
) -> None:
    with inbox_app(demo_store_template, tmp_path, FEW) as (ui, statements):
        csrf = CSRF.search(ui.get("/approvals").text)
        assert csrf is not None
        mine = [waiting("demo", index).action_hash for index in range(FEW)]
        keys = [f"{run_of('demo', index)}/{mine[index]}" for index in range(FEW)]
        foreign = f"{run_of('globex', 0)}/{waiting('globex', 0).action_hash}"
        statements.clear()
        review = ui.post(
            "/approvals/batch", data={"csrf_token": csrf.group(1), "selected": [*keys, foreign]}
        )
        tickets_read = [sql for sql in statements if TICKETS_READ.search(sql)]
        french = ui.post(
            "/approvals/batch",
            data={"csrf_token": csrf.group(1), "selected": keys},
            headers=FRENCH,
        ).text
        # The page of outcomes names each request by its title, not by a hash (here each
        # failed: this app reaches no Temporal).
        results = ui.post(
            "/approvals/batch/decision",
            data={"csrf_token": csrf.group(1), "selected": keys, "verdict": "approve"},
        ).text
    assert review.status_code == 200, review.text
    page = review.text
    assert len(tickets_read) == 1, tickets_read
    for index in range(FEW):
        card = card_of(page, run_of("demo", index))
        # Boxed, marked unverified, each its own words, as the decision page shows them.
        assert '<div class="ticket-box">' in card
        assert f'<pre class="ticket" id="ticket-text-{index + 1}" dir="auto">' in card
        assert words_of("demo", index) in card
        assert "Unverified customer text, exactly as written" in card
        assert "90.00 EUR" in card and "30.00 EUR" in card
    named = card_of(page, run_of("demo", 0))
    assert "(from <bdi>Customer Number 0 demo</bdi>)" in named
    assert "(from" not in card_of(page, run_of("demo", 1))  # "unknown" names nobody
    # No hash in support's page; globex's request is only "no longer waiting", by run id.
    for digest in (*mine, waiting("globex", 0).action_hash):
        assert short_hash(digest) not in plain(page)  # in no text a person reads
    assert "globex ticket" not in page and "Customer Number 0 globex" not in page
    assert f'<li class="gone">{run_of("globex", 0)}</li>' in page
    assert '<div class="ticket-box">' in french and "90,00" in french
    assert plain(results).count("Refund 10.00 EUR on order X-1") == 1
    for digest in mine:
        assert short_hash(digest) not in plain(results)
    assert "Unverified customer text" not in french  # the decision page's French label
