"""Which payment an order was paid with, on which platform (`payment_links`)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.store.database import use_session, write_transaction
from activities.store.errors import StoreError, UnknownTenant
from activities.store.schema import ID_LENGTH, Order, PaymentLink, Tenant
from activities.store.tickets import refuse_nul
from workflows.currencies import currency_problem


class NoPaymentLink(StoreError):
    def __init__(self, tenant_id: str, order_id: str, provider: str) -> None:
        super().__init__(
            f"Order {order_id} of tenant '{tenant_id}' is linked to no {provider} payment, "
            f"and this tenant refunds through {provider}. Link it with `signoff order link "
            f"--tenant {tenant_id} --order {order_id} --payment pi_...`."
        )


def payment_link(source: Session | Engine, tenant_id: str, order_id: str) -> PaymentLink | None:
    with use_session(source) as session:
        return session.get(PaymentLink, (tenant_id, order_id))


def payment_ref_of(source: Session | Engine, tenant_id: str, order_id: str, provider: str) -> str:
    """The order's payment on `provider`. Raises NoPaymentLink."""
    link = payment_link(source, tenant_id, order_id)
    if link is None or link.provider != provider:
        raise NoPaymentLink(tenant_id, order_id, provider)
    return link.payment_ref


def link_order(
    engine: Engine,
    *,
    tenant_id: str,
    order_id: str,
    provider: str,
    payment_ref: str,
    currency: str,
    customer_name: str,
) -> bool:
    """Link the order to its payment, adding the order when it is new (its own amount
    columns stay 0: the platform is the truth). True when the order was added."""
    if len(order_id) > ID_LENGTH or len(payment_ref) > ID_LENGTH:
        raise StoreError(f"An order id or payment reference is at most {ID_LENGTH} characters.")
    problem = currency_problem(currency)
    if problem is not None:
        raise StoreError(f"The payment's currency: {problem}")
    refuse_nul({"customer name": customer_name})
    with write_transaction(engine) as session:
        if session.get(Tenant, tenant_id) is None:
            raise UnknownTenant(tenant_id)
        added = session.get(Order, (tenant_id, order_id)) is None
        if added:
            session.add(
                Order(
                    tenant_id=tenant_id,
                    id=order_id,
                    amount_paid_minor=0,
                    currency=currency,
                    status="paid",
                    tracking=None,
                    customer_name=customer_name,
                )
            )
            session.flush()
        link = session.get(PaymentLink, (tenant_id, order_id))
        if link is None:
            session.add(
                PaymentLink(
                    tenant_id=tenant_id,
                    order_id=order_id,
                    provider=provider,
                    payment_ref=payment_ref,
                    linked_at=datetime.now(UTC),
                )
            )
        else:
            link.provider, link.payment_ref = provider, payment_ref
            link.linked_at = datetime.now(UTC)
    return added
