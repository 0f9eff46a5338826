"""Settling an unknown outcome on a payment platform: ask it by key, never refund again.

`signoff reconcile` comes here for a tenant whose refunds go through a platform: the
refund happened exactly when the platform holds one under the action's key (its
metadata, activities/payments/stripe_connector.py). The answer is recorded as for the
ledger (activities/store/settlements.py); a settlement already made is the answer and
the platform is not asked again. A platform that does not answer settles nothing: the
error says so, and reconcile can be run again once it is back.
"""

from __future__ import annotations

from sqlalchemy import Engine

from activities.payments.connector import PaymentsConnector
from activities.store.payment_links import payment_ref_of
from activities.store.settlements import (
    PlatformRefund,
    SettledRefund,
    settle_platform_refund,
    settlement_of,
)


def settle_on_platform(
    engine: Engine,
    connector: PaymentsConnector,
    *,
    tenant_id: str,
    run_id: str,
    order_id: str,
    action_hash: str,
    idempotency_key: str,
) -> SettledRefund:
    """Raises PaymentError when the platform cannot be asked; nothing is recorded then."""
    found: PlatformRefund | None = None
    if settlement_of(engine, idempotency_key) is None:
        refund = connector.find_refund(
            payment_ref_of(engine, tenant_id, order_id, connector.name), idempotency_key
        )
        if refund is not None and refund.counts:
            found = PlatformRefund(
                refund.refund_id, refund.amount_minor, refund.currency, refund.created_at
            )
    return settle_platform_refund(
        engine,
        tenant_id=tenant_id,
        run_id=run_id,
        order_id=order_id,
        action_hash=action_hash,
        idempotency_key=idempotency_key,
        found=found,
    )
