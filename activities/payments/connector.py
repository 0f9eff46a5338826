"""What a refund asks of a payment platform, and what the platform's answers mean.

A connector reads the payment an order links to (what was paid, in which currency, its
status, the refunds made on it) and makes a refund under signoff's idempotency key, which
it also leaves on the refund so that it can be found again among the payment's refunds
(`PaymentFacts.refund_under`, `find_refund`): after a crash, the key is how signoff
learns what happened before it ever asks for a second refund.

Its failures say what they mean, because the caller acts on it:
- `PaymentRefused`: the platform answered no (already refunded, amount too large); nothing
  happened, and the model reads why;
- `PaymentUnavailable`: the platform answered "not now" (rate limit, 5xx) before doing
  anything; a retry with the same key is safe;
- `PaymentOutcomeUnknown`: the request may have reached the platform and no answer came
  back (a timeout, a dropped connection); only a look-up by key can tell.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


class PaymentError(Exception):
    """A payment platform's failure; its message is safe to show (no key, no trace)."""


class PaymentRefused(PaymentError):
    """The platform refused: nothing happened, and retrying cannot change it."""


class PaymentUnavailable(PaymentError):
    """The platform said not now, before doing anything: retry with the same key."""


class PaymentOutcomeUnknown(PaymentError):
    """The request may have been carried out: look the key up before anything else."""


@dataclass(frozen=True)
class ProviderRefund:
    """One refund as the platform holds it, in minor units."""

    refund_id: str
    amount_minor: int
    currency: str
    status: str
    created_at: datetime
    idempotency_key: str | None = None

    @property
    def counts(self) -> bool:
        """Whether it takes money back: a failed or canceled refund does not."""
        return self.status not in ("failed", "canceled")


@dataclass(frozen=True)
class PaymentFacts:
    """An order's payment as the platform holds it: every amount in minor units."""

    payment_ref: str
    paid_minor: int
    currency: str
    status: str
    refunds: tuple[ProviderRefund, ...]
    # What a refund is made on, as the platform names it (Stripe: the charge), read with
    # the rest so that creating the refund needs no second read of the payment.
    refund_target: str

    def refund_under(self, idempotency_key: str) -> ProviderRefund | None:
        """The refund made under this key, whatever its status: the one an earlier
        attempt made, which must be recorded, never made again."""
        for refund in self.refunds:
            if refund.idempotency_key == idempotency_key:
                return refund
        return None

    @property
    def refunded_minor(self) -> int:
        return sum(refund.amount_minor for refund in self.refunds if refund.counts)

    @property
    def refundable_minor(self) -> int:
        return max(0, self.paid_minor - self.refunded_minor)


class PaymentsConnector(Protocol):
    """A payment platform of one tenant, with that tenant's credentials."""

    @property
    def name(self) -> str: ...

    def payment(self, payment_ref: str) -> PaymentFacts:
        """The payment and its refunds. Raises PaymentError."""
        ...

    def find_refund(self, payment_ref: str, idempotency_key: str) -> ProviderRefund | None:
        """The refund made under this key on this payment, if any. Raises PaymentError."""
        ...

    def create_refund(
        self, payment: PaymentFacts, amount_minor: int, currency: str, idempotency_key: str
    ) -> ProviderRefund:
        """Refund `payment`, as `payment()` just read it, under the key (the platform's own
        idempotency key, and left on the refund for `refund_under` and `find_refund`).
        Raises PaymentRefused, PaymentUnavailable or PaymentOutcomeUnknown."""
        ...
