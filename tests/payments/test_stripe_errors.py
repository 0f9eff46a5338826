"""What Stripe's errors mean to a refund, and how the activity hands each to Temporal:
a refusal is final and readable, a rate limit or a 5xx is retried under the same key,
no answer to the refund itself is an unknown outcome that is not retried."""

from __future__ import annotations

import pytest
import stripe
from temporalio.exceptions import ApplicationError

from activities.payments.connector import (
    PaymentError,
    PaymentOutcomeUnknown,
    PaymentRefused,
    PaymentUnavailable,
)
from activities.payments.stripe_connector import StripeConnector
from activities.refunds import payment_failure
from tests.payments.localstripe import TEST_KEY


def meaning(error: stripe.StripeError) -> PaymentError:
    connector = StripeConnector(TEST_KEY, api_base="http://127.0.0.1:9", timeout_seconds=1)
    return connector._meaning(error)


def refusal(message: str, code: str) -> stripe.InvalidRequestError:
    return stripe.InvalidRequestError(message, param="amount", code=code, http_status=400)


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (stripe.RateLimitError("Too many requests", http_status=429), PaymentUnavailable),
        (stripe.APIError("An error occurred", http_status=500), PaymentUnavailable),
        (stripe.APIError("Bad gateway", http_status=502), PaymentUnavailable),
        (
            refusal("Charge ch_1 has already been refunded.", "charge_already_refunded"),
            PaymentRefused,
        ),
        (
            stripe.AuthenticationError(f"Invalid API Key provided: {TEST_KEY}", http_status=401),
            PaymentRefused,
        ),
    ],
    ids=["rate-limit", "500", "502", "already-refunded", "bad-key"],
)
def test_each_stripe_error_means_what_it_says(
    error: stripe.StripeError, kind: type[PaymentError]
) -> None:
    meant = meaning(error)
    assert type(meant) is kind
    assert TEST_KEY not in str(meant)


def test_a_refusal_names_stripe_s_code() -> None:
    meant = meaning(refusal("Charge ch_1 has already been refunded.", "charge_already_refunded"))
    assert "charge_already_refunded" in str(meant)


@pytest.mark.parametrize(
    ("error", "retried", "kind"),
    [
        (PaymentUnavailable("Stripe asked to slow down"), True, "PaymentUnavailable"),
        (PaymentOutcomeUnknown("no answer"), False, "PaymentOutcomeUnknown"),
        (PaymentRefused("no such payment"), False, "PaymentRefused"),
    ],
)
def test_the_activity_retries_only_what_is_safe_to_retry(
    error: PaymentError, retried: bool, kind: str
) -> None:
    failure = payment_failure(error)
    assert isinstance(failure, ApplicationError)
    assert (failure.non_retryable, failure.type) == (not retried, kind)
