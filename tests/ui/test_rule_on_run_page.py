"""A standing rule made on the administrator's page approves a run's refund on the real
stack (`signoff dev`: its decision key signs the rule, its worker checks it), and the
run's page says which rule approved it and who made the rule.

The rule is scoped to this test's own customer, so that it approves no other test's
refund on the shared stack; it is revoked at the end all the same.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from activities.store import write_transaction
from activities.store.schema import Order, Ticket
from signoff.config.temporal_client import connect
from signoff.service.handles import Store
from signoff.service.standing_rules import rules_of
from tests.ui.conftest import DAMAGED_TEXT, DevStack, RefundCase, sign_in, start_run

RUN_SECONDS = 60


def own_customer_case(engine: Engine) -> tuple[RefundCase, str]:
    """An order of 60.00 EUR and its ticket, of a customer no other test has."""
    suffix = uuid.uuid4().hex[:8].upper()
    customer = f"Rule Test {suffix}"
    order_id, ticket_id = f"UI-{suffix}", f"T-UI-{suffix}"
    with write_transaction(engine) as session:
        session.add(
            Order(
                tenant_id="demo",
                id=order_id,
                amount_paid_minor=6000,
                currency="EUR",
                status="delivered",
                tracking=None,
                customer_name=customer,
            )
        )
        session.flush()
        session.add(
            Ticket(
                tenant_id="demo",
                id=ticket_id,
                order_id=order_id,
                customer_name=customer,
                text=DAMAGED_TEXT,
                created_at=datetime.now(UTC),
            )
        )
    return RefundCase("demo", order_id, ticket_id, f"run-demo-{suffix.lower()}"), customer


def run_ended(stack: DevStack, run_id: str) -> None:
    async def wait() -> None:
        client = await connect(stack.settings())
        await asyncio.wait_for(client.get_workflow_handle(run_id).result(), RUN_SECONDS)

    asyncio.run(wait())


def test_the_run_page_names_the_rule_that_approved_the_refund(
    dev_stack: DevStack, store: Engine, ui: TestClient
) -> None:
    case, customer = own_customer_case(store)
    token = sign_in(ui, "admin")
    made = ui.post(
        "/admin/rules",
        data={
            "csrf_token": token,
            "tool": "refund",
            "max_amount": "60.00",
            "currency": "EUR",
            "customer": customer,
            "lifetime": "1h",
            "max_uses": "1",
        },
    )
    assert made.status_code == 303, made.text
    (rule,) = [r for r in rules_of(Store(store), "demo") if r.customer == customer]
    try:
        start_run(dev_stack, case)
        run_ended(dev_stack, case.run_id)
        page = ui.get(f"/runs/{case.run_id}").text
    finally:
        ui.post(f"/admin/rules/{rule.id}/revoke", data={"csrf_token": token})

    assert f"approved by standing rule {rule.id} (created by admin)" in page
    assert "rule_approved" in page
    (spent,) = [r for r in rules_of(Store(store), "demo", everything=True) if r.id == rule.id]
    assert spent.uses == 1
