"""Fixtures of the Stripe tests: localstripe in its own process, the demo tenant
refunding through it (its key in a 0600 file named by the keys file), and the demo
order C-1042 linked to a fresh card payment there."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from activities.payments.registry import PaymentConnectors
from signoff.config.settings import Settings
from signoff.service.handles import Store
from signoff.service.payment_orders import link_payment
from tests.payments.localstripe import TEST_KEY, LocalStripe, running_localstripe

# Seconds one call to Stripe may take: a paused server is silent for longer.
TEST_TIMEOUT_SECONDS = 2.0
ORDER = "C-1042"


@pytest.fixture
def localstripe() -> Iterator[LocalStripe]:
    with running_localstripe() as server:
        yield server


def stripe_settings(home: Path, server: LocalStripe, **overrides: object) -> Settings:
    """Settings whose demo tenant refunds through `server`, with TEST_KEY."""
    key_file = home / "demo-stripe.key"
    key_file.write_text(TEST_KEY + "\n")
    os.chmod(key_file, 0o600)
    keys = home / "stripe-keys.json"
    keys.write_text(json.dumps({"demo": {"key_file": key_file.name}}))
    values: dict[str, object] = {
        "home": home,
        "stripe_keys_file": keys,
        "stripe_api_base": server.url,
        "stripe_timeout_seconds": TEST_TIMEOUT_SECONDS,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture
def stripe_home(tmp_path: Path, localstripe: LocalStripe) -> Settings:
    home = tmp_path / "home"
    home.mkdir()
    return stripe_settings(home, localstripe)


@pytest.fixture
def payments(stripe_home: Settings) -> PaymentConnectors:
    return PaymentConnectors(stripe_home)


def link_paid_order(
    engine: Engine, payments: PaymentConnectors, server: LocalStripe, amount_minor: int
) -> tuple[str, str]:
    """Pay `amount_minor` EUR in localstripe and link the demo order C-1042 to it."""
    intent, charge = server.paid_charge(amount_minor)
    link_payment(
        Store(engine),
        payments,
        tenant_id="demo",
        order_id=ORDER,
        payment_ref=intent,
        customer_name="Marie Dupont",
    )
    return intent, charge
