"""What the store refuses whichever face calls it, on SQLite and PostgreSQL: a NUL byte
in a ticket's text or a customer's name (PostgreSQL refused it with a driver error and
SQLite kept it; now both refuse it in words, before anything is written), and a
currency that is not money (XXX, XTS, XAU, a withdrawn code) in a standing rule or an
order linked to a payment."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from activities.store.errors import StoreError
from activities.store.intake_deliveries import DeliveryKey, NewTicket, store_delivery
from activities.store.payment_links import link_order
from activities.store.rule_schema import StandingRule
from activities.store.schema import Order, Ticket
from activities.store.standing_rules import NewRule, create_rule
from activities.store.tickets import add_ticket
from tests.clock import clock_now
from tests.store.proofs import PROOF_SIGNER
from workflows.currencies import currency_problem, money_currencies

NUL_WORDS = "NUL byte"


def count(store: Engine, table: type[Ticket] | type[Order] | type[StandingRule]) -> int:
    with store.connect() as connection:
        return connection.execute(select(func.count()).select_from(table)).scalar_one()


@pytest.mark.parametrize(
    ("text", "customer", "named"),
    [("Broken\x00lamp", "Kim", "ticket text"), ("Broken lamp", "Kim\x00", "customer name")],
)
def test_a_nul_byte_in_a_ticket_is_refused_on_every_backend(
    store: Engine, text: str, customer: str, named: str
) -> None:
    before = count(store, Ticket)
    with pytest.raises(StoreError, match=f"The {named} holds a {NUL_WORDS}"):
        add_ticket(store, "demo", None, text, customer_name=customer)
    key = DeliveryKey("demo", "generic", "77", "evt-nul")
    with pytest.raises(StoreError, match=f"The {named} holds a {NUL_WORDS}"):
        store_delivery(store, key, NewTicket(customer, text, None), "triage-demo-x", clock_now())
    assert count(store, Ticket) == before
    assert add_ticket(store, "demo", None, "Broken lamp", customer_name="Kim").startswith("T-")


ASKED = NewRule(
    tenant_id="demo",
    tool="refund",
    max_amount_minor=5000,
    currency="EUR",
    customer=None,
    category=None,
    expires_at=clock_now() + timedelta(days=7),
    max_uses=5,
    shadow=False,
)


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"currency": "XXX"}, "'XXX' is not the ISO 4217 code"),
        ({"currency": "XTS"}, "'XTS' is not the ISO 4217 code"),
        ({"currency": "XAU"}, "'XAU' is not the ISO 4217 code"),
        ({"currency": "eur"}, "'eur' is not the ISO 4217 code"),
        ({"customer": "Kim\x00"}, f"The customer holds a {NUL_WORDS}"),
        ({"category": "\x00"}, f"The category holds a {NUL_WORDS}"),
    ],
)
def test_the_store_makes_no_rule_in_a_currency_that_is_no_money_or_with_a_nul(
    store: Engine, changes: dict[str, Any], words: str
) -> None:
    before = count(store, StandingRule)
    asked = replace(ASKED, **changes)
    signer = PROOF_SIGNER
    with pytest.raises(StoreError, match=words):
        create_rule(store, "admin", asked, signer.key_id, signer.sign, clock_now())
    assert count(store, StandingRule) == before


@pytest.mark.parametrize("currency", ["XXX", "XAU", "DEM"])
def test_an_order_in_a_currency_that_is_no_money_is_not_linked(
    store: Engine, currency: str
) -> None:
    before = count(store, Order)
    with pytest.raises(StoreError, match=f"'{currency}' is not the ISO 4217 code"):
        link_order(
            store, tenant_id="demo", order_id="P-NUL-1", provider="stripe",
            payment_ref="pi_1", currency=currency, customer_name="Kim",
        )  # fmt: skip
    with pytest.raises(StoreError, match=f"The customer name holds a {NUL_WORDS}"):
        link_order(
            store, tenant_id="demo", order_id="P-NUL-1", provider="stripe",
            payment_ref="pi_1", currency="EUR", customer_name="K\x00im",
        )  # fmt: skip
    assert count(store, Order) == before


def test_money_is_the_currencies_in_use_and_nothing_else() -> None:
    for code in ("EUR", "USD", "JPY", "CHF", "GBP", "XOF", "XAF", "XPF", "XCD"):
        assert currency_problem(code) is None, code
    # No currency, the test code, metals, units of account, funds, withdrawn, not codes.
    refused = ["XXX", "XTS", "XAU", "XAG", "XPT", "XPD", "XDR", "XSU", "XUA", "BOV", "CLF"]
    refused += ["USN", "DEM", "HRK", "eur", "EU", "EURO", "", "E\x00R"]
    for code in refused:
        assert currency_problem(code) is not None, code
    assert not any(code.startswith("XX") or code == "XTS" for code in money_currencies())
