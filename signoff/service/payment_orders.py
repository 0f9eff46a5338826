"""Orders paid on a payment platform: link one to its payment, read its refunds there.

Linking reads the payment first, with the tenant's own key: a reference the platform
does not know, or a tenant that does not refund through it, is refused with what to do,
and nothing is stored. The reviewer's page reads the prior refunds here too, from the
platform at the time of reading, never from our tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal

from activities.payments.connector import PaymentError, PaymentFacts
from activities.payments.registry import PaymentConnectors as PaymentConnectors
from activities.store.payment_links import link_order, payment_link
from activities.store.refunds import list_refunds
from activities.store.schema import minor_to_decimal
from activities.store.ticket_refunds import ticket_refunds
from signoff.config.settings import Settings
from signoff.payments.registry import PaymentSetupProblem, where_configured
from signoff.service.handles import Store, engine_of


class PaymentLinkRefused(Exception):
    """The link cannot be made or read; the message says why and what to do."""


@dataclass(frozen=True)
class LinkedOrder:
    tenant_id: str
    order_id: str
    provider: str
    payment_ref: str
    added: bool
    facts: PaymentFacts


@dataclass(frozen=True)
class PriorRefund:
    refund_id: str
    amount_minor: int
    currency: str
    status: str
    created_at: datetime


def connectors(settings: Settings) -> PaymentConnectors:
    try:
        return PaymentConnectors(settings)
    except PaymentSetupProblem as problem:
        raise PaymentLinkRefused(str(problem)) from None


def link_payment(
    store: Store,
    payments: PaymentConnectors,
    *,
    tenant_id: str,
    order_id: str,
    payment_ref: str,
    customer_name: str,
) -> LinkedOrder:
    """Raises PaymentLinkRefused, or the store's StoreError (an unknown tenant)."""
    engine = engine_of(store)
    try:
        connector = payments.for_tenant(tenant_id)
        if connector is None:
            raise PaymentLinkRefused(
                f"Tenant '{tenant_id}' refunds through the embedded ledger: name it in "
                f"a payment platform's configuration ({where_configured()}) with its "
                "credentials to link its orders to payments."
            )
        facts = connector.payment(payment_ref)
    except PaymentError as error:
        raise PaymentLinkRefused(f"Cannot read payment {payment_ref}: {error}") from None
    added = link_order(
        engine,
        tenant_id=tenant_id,
        order_id=order_id,
        provider=connector.name,
        payment_ref=payment_ref,
        currency=facts.currency,
        customer_name=customer_name,
    )
    return LinkedOrder(tenant_id, order_id, connector.name, payment_ref, added, facts)


def prior_refunds(
    store: Store, payments: PaymentConnectors, tenant_id: str, order_id: str
) -> list[PriorRefund] | None:
    """The order's refunds on its platform, oldest first; None for a ledger order (its
    refunds are the ledger's). Raises PaymentLinkRefused when the platform cannot say."""
    engine = engine_of(store)
    link = payment_link(engine, tenant_id, order_id)
    if link is None:
        return None
    try:
        connector = payments.for_tenant(tenant_id)
        if connector is None or connector.name != link.provider:
            # Paid on a platform this process cannot read: never pass our rows off as its.
            raise PaymentLinkRefused(
                f"Order {order_id} was paid on {link.provider}, and this process has no "
                f"{link.provider} credentials for tenant '{tenant_id}' ({where_configured()})."
            )
        facts = connector.payment(link.payment_ref)
    except PaymentError as error:
        raise PaymentLinkRefused(f"{link.provider} did not say ({error}).") from None
    return [
        PriorRefund(r.refund_id, r.amount_minor, r.currency, r.status, r.created_at)
        for r in facts.refunds
    ]


@dataclass(frozen=True)
class RefundLine:
    """One prior refund as the reviewer reads it: from the ledger, or from the platform
    with who approved it when signoff made it (a refund made elsewhere names nobody)."""

    id: str
    order_id: str
    amount_minor: int
    currency: str
    created_at: datetime
    approver_list: list[str] = field(default_factory=list)
    reason: str = ""
    # Made for a run of the ticket a reviewer is deciding on: what the reviewer who
    # approved it wrote when they edited it ("" when approved as proposed); None when it
    # was made for another ticket.
    same_ticket: str | None = None

    @property
    def amount(self) -> Decimal:
        return minor_to_decimal(self.amount_minor)


def refund_lines(
    store: Store, payments: PaymentConnectors, tenant_id: str, order_id: str
) -> list[RefundLine]:
    """The order's refunds, oldest first: the platform's for an order paid there (read
    now), the ledger's otherwise. Raises PaymentLinkRefused when the platform cannot say."""
    engine = engine_of(store)
    recorded = {row.id: row for row in list_refunds(engine, tenant_id, order_id)}
    made = prior_refunds(store, payments, tenant_id, order_id)
    if made is None:
        return [
            RefundLine(
                row.id,
                row.order_id,
                row.amount_minor,
                row.currency,
                row.created_at,
                row.approver_list,
                row.reason,
            )
            for row in recorded.values()
        ]
    lines = []
    for refund in made:
        if refund.status in ("failed", "canceled"):
            continue
        ours = recorded.get(refund.refund_id)
        lines.append(
            RefundLine(
                refund.refund_id,
                order_id,
                refund.amount_minor,
                refund.currency,
                refund.created_at,
                ours.approver_list if ours else [],
                ours.reason if ours else "",
            )
        )
    return lines


def on_ticket(
    store: Store, tenant_id: str, ticket_id: str, lines: list[RefundLine]
) -> list[RefundLine]:
    """`lines`, each refund made for a run of this ticket marked with its edit note."""
    made = ticket_refunds(engine_of(store), tenant_id, ticket_id)
    return [replace(line, same_ticket=made.get(line.id)) for line in lines]
