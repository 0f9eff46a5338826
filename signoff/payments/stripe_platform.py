"""Stripe: the tenants SIGNOFF_STRIPE_KEYS_FILE names, each with its own key
(signoff/config/stripe_keys.py), refund through activities/payments/stripe_connector.py
(docs/connect-stripe.md)."""

from __future__ import annotations

from typing import Any

from signoff.payments.registry import PaymentPlatform

# What one refund attempt asks of Stripe, counted against localstripe on the SDK's own
# transport (tests/payments/test_stripe_calls.py): the PaymentIntent with its charge
# expanded, the charge's refunds, the refund. docs/connect-stripe.md states the same.
REFUND_CALLS = 3

STRIPE = PaymentPlatform(
    name="stripe",
    tenants="signoff.config.stripe_keys:stripe_tenants",
    connector="activities.payments.stripe_connector:for_tenant",
    secrets="signoff.config.stripe_keys:key_values",
    configured_by="SIGNOFF_STRIPE_KEYS_FILE",
    refund_calls=REFUND_CALLS,
    call_timeout="signoff.payments.stripe_platform:call_timeout_seconds",
)


def call_timeout_seconds(settings: Any) -> float:
    """How long one HTTP call to Stripe may take (`SIGNOFF_STRIPE_TIMEOUT_SECONDS`): the
    SDK's transport gives up on it then (activities/payments/stripe_connector.py)."""
    seconds: float = settings.stripe_timeout_seconds
    return seconds
