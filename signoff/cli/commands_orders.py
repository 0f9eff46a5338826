"""`signoff order link`: an order of a Stripe tenant, linked to its payment there."""

from __future__ import annotations

from typing import Annotated

import typer

from signoff.cli.store import opened_store
from signoff.cli.support import EXIT_RUN_FAILED, emit_json, fail, say, settings
from signoff.service.payment_orders import PaymentLinkRefused, connectors, link_payment
from signoff.service.store import StoreError
from workflows.approval_policy import money
from workflows.contract_base import tenant_id_problem

orders = typer.Typer(help="Orders paid on a payment platform: link each to its payment.")


def register(app: typer.Typer) -> None:
    app.add_typer(orders, name="order")


@orders.command("link")
def link_command(
    tenant: Annotated[str, typer.Option(help="The tenant the order belongs to.")],
    order: Annotated[str, typer.Option(help="signoff's order id (what tickets name).")],
    payment: Annotated[
        str, typer.Option(help="The payment in Stripe: a PaymentIntent pi_... or a Charge ch_...")
    ],
    customer: Annotated[str, typer.Option(help="Who paid, for the reviewer's page.")] = "unknown",
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Link an order to its payment in Stripe, read with the tenant's key; adds the order."""
    problem = tenant_id_problem(tenant)
    if problem is not None:
        fail(problem)
    current = settings()
    try:
        payments = connectors(current)
        with opened_store(current) as engine:
            linked = link_payment(
                engine,
                payments,
                tenant_id=tenant,
                order_id=order,
                payment_ref=payment,
                customer_name=customer,
            )
    except StoreError as error:
        fail(str(error))
    except PaymentLinkRefused as error:
        fail(str(error), EXIT_RUN_FAILED)
    facts = linked.facts
    if json_output:
        emit_json(
            {
                "tenant": tenant,
                "order": order,
                "provider": linked.provider,
                "payment": payment,
                "added": linked.added,
                "paid": money(facts.paid_minor),
                "refunded": money(facts.refunded_minor),
                "currency": facts.currency,
            }
        )
        return
    say(
        f"order {order} of {tenant} -> {linked.provider} {payment}: paid "
        f"{money(facts.paid_minor)} {facts.currency}, refunded {money(facts.refunded_minor)}"
        f"{' (order added)' if linked.added else ''}"
    )
