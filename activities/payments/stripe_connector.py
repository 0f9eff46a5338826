"""Stripe behind the payments connector, through the official `stripe` SDK.

An order links to a PaymentIntent (`pi_...`, its latest charge is the payment) or a
Charge (`ch_...`). Amounts and the currency are Stripe's, in minor units; the refunds are
Stripe's list for the charge, read at every call, never our tables.

A refund is created with Stripe's own `idempotency_key` set to signoff's key, and the
key is also written into the refund's metadata (`METADATA_KEY`): Stripe forgets an
idempotency key after a day, and a server that does not honour them (localstripe) still
keeps metadata, so the charge's refunds listed with that key (`refund_under` of the
payment a refund attempt reads, `find_refund` for reconcile) are how signoff learns what
happened after a crash.

The SDK's own retries are off (`max_network_retries=0`): Temporal owns retries, each
attempt looks its key up first, and a retry the SDK made silently after a timeout would
be a second request whose fate nobody records. Errors become the connector's
(`connector.py`); their messages are Stripe's words for the refusal or our own, never the
request, and the key is blanked from them in any case.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import stripe

from activities.payments.connector import (
    PaymentError,
    PaymentFacts,
    PaymentOutcomeUnknown,
    PaymentRefused,
    PaymentUnavailable,
    ProviderRefund,
)
from signoff.config.settings import Settings
from signoff.config.stripe_keys import KeySource, read_key

METADATA_KEY = "signoff_idempotency_key"
# Stripe's idempotency keys are at most 255 characters, as signoff's (KEY_LENGTH).
STRIPE_KEY_LENGTH = 255
# One page: an order with more refunds than this is not a support case.
REFUND_PAGE = 100
# Stripe's currencies without minor units: signoff's amounts have two decimals.
ZERO_DECIMAL_CURRENCIES = frozenset(
    "bif clp djf gnf jpy kmf krw mga pyg rwf ugx vnd vuv xaf xof xpf".split()
)


class StripeConnector:
    name = "stripe"

    def __init__(
        self,
        api_key: str,
        *,
        api_base: str | None,
        timeout_seconds: float,
        http_client: stripe.HTTPClient | None = None,
    ) -> None:
        """`http_client` replaces the SDK's transport (tests pause the server from it)."""
        self._api_key = api_key
        self._client = stripe.StripeClient(
            api_key,
            base_addresses={"api": api_base} if api_base else {},
            max_network_retries=0,
            http_client=http_client or stripe.RequestsClient(timeout=timeout_seconds),
        )

    def payment(self, payment_ref: str) -> PaymentFacts:
        charge = self._charge(payment_ref)
        currency = str(charge["currency"]).lower()
        if currency in ZERO_DECIMAL_CURRENCIES:
            raise PaymentRefused(
                f"Payment {payment_ref} is in {currency.upper()}, a currency without minor "
                "units; signoff refunds two-decimal currencies only. Refund it in Stripe."
            )
        captured = charge.get("amount_captured")
        paid = int(captured if captured is not None else charge["amount"])
        refunds = tuple(self._refunds(str(charge["id"])))
        status = "refunded" if charge.get("refunded") else str(charge.get("status") or "unknown")
        return PaymentFacts(
            payment_ref=payment_ref,
            paid_minor=paid if charge.get("paid", True) else 0,
            currency=currency.upper(),
            status=status,
            refunds=refunds,
            refund_target=str(charge["id"]),
        )

    def find_refund(self, payment_ref: str, idempotency_key: str) -> ProviderRefund | None:
        charge = self._charge(payment_ref)
        for refund in self._refunds(str(charge["id"])):
            if refund.idempotency_key == idempotency_key:
                return refund
        return None

    def create_refund(
        self, payment: PaymentFacts, amount_minor: int, currency: str, idempotency_key: str
    ) -> ProviderRefund:
        """One call: the charge and its currency come from `payment`, read by this
        attempt a moment before (a charge's id and currency never change)."""
        if len(idempotency_key) > STRIPE_KEY_LENGTH:
            raise PaymentRefused(f"The idempotency key is longer than {STRIPE_KEY_LENGTH}.")
        if payment.currency != currency:
            raise PaymentRefused(
                f"Payment {payment.payment_ref} is in {payment.currency}, not {currency}."
            )
        try:
            created = self._client.v1.refunds.create(
                params={
                    "charge": payment.refund_target,
                    "amount": amount_minor,
                    "metadata": {METADATA_KEY: idempotency_key},
                },
                options={"idempotency_key": idempotency_key},
            )
        except stripe.APIConnectionError:
            # Sent, perhaps carried out, no answer: only the key can tell.
            raise PaymentOutcomeUnknown(
                "Stripe did not answer the refund request; it may have been carried out."
            ) from None
        except stripe.StripeError as error:
            raise self._meaning(error) from None
        return _refund(created.to_dict())

    def _charge(self, payment_ref: str) -> dict[str, Any]:
        try:
            if payment_ref.startswith("pi_"):
                intent = self._client.v1.payment_intents.retrieve(
                    payment_ref, params={"expand": ["latest_charge"]}
                ).to_dict()
                charge = intent.get("latest_charge")
                if charge is None:
                    raise PaymentRefused(
                        f"PaymentIntent {payment_ref} has no charge: nothing was paid yet."
                    )
                if isinstance(charge, str):
                    return self._client.v1.charges.retrieve(charge).to_dict()
                return dict(charge)
            if payment_ref.startswith(("ch_", "py_")):
                return self._client.v1.charges.retrieve(payment_ref).to_dict()
        except stripe.APIConnectionError:
            raise PaymentUnavailable("Stripe did not answer (a read; nothing was done).") from None
        except stripe.StripeError as error:
            raise self._meaning(error) from None
        raise PaymentRefused(
            f"'{payment_ref}' is neither a PaymentIntent (pi_...) nor a Charge (ch_...)."
        )

    def _refunds(self, charge_id: str) -> list[ProviderRefund]:
        try:
            page = self._client.v1.refunds.list(params={"charge": charge_id, "limit": REFUND_PAGE})
        except stripe.APIConnectionError:
            raise PaymentUnavailable("Stripe did not answer (a read; nothing was done).") from None
        except stripe.StripeError as error:
            raise self._meaning(error) from None
        listed = page.to_dict()
        if listed.get("has_more"):
            raise PaymentRefused(
                f"Charge {charge_id} has more than {REFUND_PAGE} refunds; refund it in Stripe."
            )
        refunds = [_refund(item) for item in listed.get("data", [])]
        return sorted(refunds, key=lambda refund: (refund.created_at, refund.refund_id))

    def _meaning(self, error: stripe.StripeError) -> PaymentError:
        """What a Stripe error means for the refund (see `connector.py`)."""
        said = self._blanked(error.user_message or "")
        status = error.http_status or 0
        if isinstance(error, stripe.RateLimitError) or status == 429:
            return PaymentUnavailable("Stripe asked to slow down (rate limit); retried.")
        if isinstance(error, (stripe.AuthenticationError, stripe.PermissionError)):
            # The key is wrong or lacks a permission: no retry fixes it, a person must.
            return PaymentRefused(
                "Stripe refused signoff's key for this tenant (invalid, or missing the "
                "permission). An operator must fix the key; see Connect Stripe."
            )
        if isinstance(error, stripe.APIError) or status >= 500:
            # Stripe's 5xx is safe to retry under the same key; the retry looks it up first.
            return PaymentUnavailable(f"Stripe failed ({status}); retried with the same key.")
        if status == 404:
            return PaymentRefused("Stripe knows no such payment or charge. " + said)
        if isinstance(error, stripe.IdempotencyError):
            return PaymentRefused("Stripe holds this key for another request. " + said)
        why = f" ({error.code})" if error.code else ""
        return PaymentRefused(f"Stripe refused{why}: {said or 'no reason given'}")

    def _blanked(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text


def _refund(data: dict[str, Any]) -> ProviderRefund:
    metadata = data.get("metadata") or {}
    created = data.get("created")
    return ProviderRefund(
        refund_id=str(data["id"]),
        amount_minor=int(data["amount"]),
        currency=str(data.get("currency") or "").upper(),
        status=str(data.get("status") or "succeeded"),
        created_at=datetime.fromtimestamp(int(created), UTC)
        if created is not None
        else datetime.fromtimestamp(0, UTC),
        idempotency_key=metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None,
    )


def for_tenant(settings: Settings, source: KeySource) -> StripeConnector:
    """The connector of one Stripe tenant (signoff/payments/stripe_platform.py), with its
    key read now, in the process that calls Stripe. Raises StripeKeyProblem (a
    PaymentSetupProblem) for a key it cannot use."""
    return StripeConnector(
        read_key(source),
        api_base=settings.stripe_api_base,
        timeout_seconds=settings.stripe_timeout_seconds,
    )
