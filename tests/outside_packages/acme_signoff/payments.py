"""The `acmepay` payment platform: declared here, registered by the package's entry
point. Which tenants pay through it is its own setting (ACMEPAY_TENANTS, a comma list),
and its key (ACMEPAY_KEY) a secret the logs blank. Its payments live in this process
(`LEDGER`), where a test reads what was refunded.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from activities.payments.connector import PaymentFacts, PaymentRefused, ProviderRefund
from signoff.payments import PaymentPlatform, PaymentSetupProblem


@dataclass(frozen=True)
class AcmeTenant:
    tenant_id: str
    give_up_after_seconds: int | None = None


@dataclass
class AcmeLedger:
    paid: dict[str, tuple[int, str]] = field(default_factory=dict)
    refunds: dict[str, list[ProviderRefund]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)


LEDGER = AcmeLedger()


class AcmePayConnector:
    name = "acmepay"

    def __init__(self, key: str) -> None:
        self.key = key

    def payment(self, payment_ref: str) -> PaymentFacts:
        LEDGER.calls.append(f"payment {payment_ref}")
        if payment_ref not in LEDGER.paid:
            raise PaymentRefused(f"no payment {payment_ref} at acmepay")
        paid, currency = LEDGER.paid[payment_ref]
        return PaymentFacts(
            payment_ref=payment_ref,
            paid_minor=paid,
            currency=currency,
            status="succeeded",
            refunds=tuple(LEDGER.refunds.get(payment_ref, ())),
            refund_target=payment_ref,
        )

    def find_refund(self, payment_ref: str, idempotency_key: str) -> ProviderRefund | None:
        return self.payment(payment_ref).refund_under(idempotency_key)

    def create_refund(
        self, payment: PaymentFacts, amount_minor: int, currency: str, idempotency_key: str
    ) -> ProviderRefund:
        LEDGER.calls.append(f"refund {payment.payment_ref} {amount_minor}")
        made = payment.refund_under(idempotency_key)
        if made is not None:  # the platform's own idempotency: the same key, the same refund
            return made
        refunds = LEDGER.refunds.setdefault(payment.payment_ref, [])
        refund = ProviderRefund(
            refund_id=f"acme_re_{len(refunds) + 1}",
            amount_minor=amount_minor,
            currency=currency,
            status="succeeded",
            created_at=datetime.now(UTC),
            idempotency_key=idempotency_key,
        )
        refunds.append(refund)
        return replace(refund)


def tenants(settings: Any) -> dict[str, AcmeTenant]:
    named = [name.strip() for name in os.environ.get("ACMEPAY_TENANTS", "").split(",")]
    return {name: AcmeTenant(name) for name in named if name}


def connector(settings: Any, tenant: AcmeTenant) -> AcmePayConnector:
    key = os.environ.get("ACMEPAY_KEY", "")
    if not key:
        raise PaymentSetupProblem(f"ACMEPAY_KEY is unset: tenant '{tenant.tenant_id}' cannot pay")
    return AcmePayConnector(key)


def secrets(settings: Any) -> list[str]:
    key = os.environ.get("ACMEPAY_KEY", "")
    return [key] if key else []


ACMEPAY = PaymentPlatform(
    name="acmepay",
    tenants="acme_signoff.payments:tenants",
    connector="acme_signoff.payments:connector",
    secrets="acme_signoff.payments:secrets",
    configured_by="ACMEPAY_TENANTS",
)
