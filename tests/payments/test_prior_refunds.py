"""What the reviewer reads as an order's prior refunds: Stripe's, read now, with their
dates and amounts; who approved those signoff made; and, when Stripe cannot be read,
a refusal the page shows, never signoff's own rows passed off as Stripe's."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from activities.payments.registry import PaymentConnectors
from signoff.config.settings import Settings
from signoff.service.handles import Store
from signoff.service.payment_orders import PaymentLinkRefused, refund_lines
from tests.payments.conftest import ORDER, link_paid_order, stripe_settings
from tests.payments.localstripe import LocalStripe


def test_prior_refunds_are_stripe_s_with_dates_and_amounts(
    seeded_engine: Engine, localstripe: LocalStripe, payments: PaymentConnectors
) -> None:
    _, charge = link_paid_order(seeded_engine, payments, localstripe, 4999)
    made = localstripe.client().v1.refunds.create(params={"charge": charge, "amount": 700})

    (line,) = refund_lines(Store(seeded_engine), payments, "demo", ORDER)

    assert (line.id, line.amount_minor, str(line.amount), line.currency) == (
        made.id,
        700,
        "7.00",
        "EUR",
    )
    assert line.created_at.timestamp() == made.created
    assert line.approver_list == []  # made in Stripe, not by signoff: nobody approved it here


def test_a_process_without_the_key_says_so(
    seeded_engine: Engine, localstripe: LocalStripe, payments: PaymentConnectors, tmp_path: Path
) -> None:
    link_paid_order(seeded_engine, payments, localstripe, 4999)
    with pytest.raises(PaymentLinkRefused, match="no stripe credentials for tenant 'demo'"):
        refund_lines(
            Store(seeded_engine), PaymentConnectors(Settings(home=tmp_path)), "demo", ORDER
        )


def test_stripe_unreachable_is_said_not_hidden(
    seeded_engine: Engine, localstripe: LocalStripe, payments: PaymentConnectors, tmp_path: Path
) -> None:
    link_paid_order(seeded_engine, payments, localstripe, 4999)
    home = tmp_path / "elsewhere"
    home.mkdir()
    unreachable = stripe_settings(home, localstripe, stripe_api_base="http://127.0.0.1:9")
    with pytest.raises(PaymentLinkRefused, match="did not answer"):
        refund_lines(Store(seeded_engine), PaymentConnectors(unreachable), "demo", ORDER)
