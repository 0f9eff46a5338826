"""A payment platform from a package outside signoff: installed, an approved refund is
made there exactly once, with signoff's key, and no module of signoff was edited
(issue 43, "every seam is a registry").

The package (tests/outside_packages, `acme_signoff.payments`) registers `acmepay` under
the `signoff.payments` entry points; its tenants and key are its own settings. The
run is the real workflow, gateway and refund activities on a time-skipping server;
only the model is scripted.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.payments.connector import PaymentRefused
from activities.payments.registry import PaymentConnectors
from activities.store import list_refunds
from signoff.config.logs import settings_secrets
from signoff.config.settings import Settings
from signoff.payments import PaymentSetupProblem, platform_tenants
from signoff.service.connectors import configured_connectors
from signoff.service.handles import Store
from signoff.service.payment_orders import link_payment
from tests.outside_install import outside_package_installed
from tests.workflow.approvals import decide, decision, gate_run, pending_actions, results_of_turn
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.contracts import RunOutcome

ACMEPAY_KEY = "acmepay-secret-51c9"
ORDER, PAYMENT = "C-1042", "acme_pi_1"


@pytest.fixture
def ledger(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """acmepay installed, paying for the demo tenant; its in-process ledger."""
    monkeypatch.setenv("ACMEPAY_TENANTS", "demo")
    monkeypatch.setenv("ACMEPAY_KEY", ACMEPAY_KEY)
    with outside_package_installed():
        yield importlib.import_module("acme_signoff.payments").LEDGER


async def test_an_approved_refund_is_made_once_on_a_platform_installed_from_outside(
    ledger: Any, time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    ledger.paid[PAYMENT] = (4999, "EUR")
    payments = PaymentConnectors(Settings(home=tmp_path))
    link_payment(
        Store(seeded_engine),
        payments,
        tenant_id="demo",
        order_id=ORDER,
        payment_ref=PAYMENT,
        customer_name="Marie Dupont",
    )
    refund = ("refund", {"amount": "12.50", "reason": "The vase arrived broken."})
    model = FakeModel().enqueue(
        tool_reply(("get_order", {})), tool_reply(refund), text_reply("Refunded.")
    )
    async with gate_run(time_skipping_env, model, seeded_engine, payments=payments) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    # What the model and the reviewer saw came from acmepay, not the shop's 89.90.
    (looked_up,) = results_of_turn(model.history[1])
    assert json.loads(looked_up.content)["amount_paid"] == "49.99"
    assert (action.state.paid_minor, action.state.refunded_minor) == (4999, 0)
    (made,) = ledger.refunds[PAYMENT]
    key = f"{handle.id}:refund:{action.action_hash}"
    assert (made.amount_minor, made.idempotency_key) == (1250, key)
    (row,) = list_refunds(seeded_engine, "demo", ORDER)
    assert (row.id, row.amount, row.idempotency_key) == (made.refund_id, Decimal("12.50"), key)
    assert isinstance(outcome, RunOutcome)
    assert outcome.effects_performed == [
        f"refund 12.50 EUR on order {ORDER} (refund {made.refund_id})"
    ]


def test_what_the_platform_declares_is_what_signoff_uses(ledger: Any, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    assert ACMEPAY_KEY in settings_secrets(settings)  # its key is blanked from logs
    assert "payments:demo" in configured_connectors(settings)  # `signoff connectors`
    assert PaymentConnectors(settings).for_tenant("globex") is None  # the ledger's


def test_its_setup_problem_fails_its_tenant_saying_what_to_fix(
    ledger: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ACMEPAY_KEY")
    with pytest.raises(PaymentRefused, match="ACMEPAY_KEY is unset: tenant 'demo'"):
        PaymentConnectors(Settings(home=tmp_path)).for_tenant("demo")


def test_a_tenant_two_platforms_claim_is_refused(ledger: Any, tmp_path: Path) -> None:
    keys = tmp_path / "stripe-keys.json"
    keys.write_text(json.dumps({"demo": {"key_env": "DEMO_STRIPE_KEY"}}))
    with pytest.raises(PaymentSetupProblem, match="Tenant 'demo' is named by two payment"):
        platform_tenants(Settings(home=tmp_path, stripe_keys_file=keys))
