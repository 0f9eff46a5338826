"""Stripe: the tenants SIGNOFF_STRIPE_KEYS_FILE names, each with its own key
(signoff/config/stripe_keys.py), refund through activities/payments/stripe_connector.py
(docs/connect-stripe.md)."""

from __future__ import annotations

from signoff.payments.registry import PaymentPlatform

STRIPE = PaymentPlatform(
    name="stripe",
    tenants="signoff.config.stripe_keys:stripe_tenants",
    connector="activities.payments.stripe_connector:for_tenant",
    secrets="signoff.config.stripe_keys:key_values",
    configured_by="SIGNOFF_STRIPE_KEYS_FILE",
)
