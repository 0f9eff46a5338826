"""The Stripe effect's own checks, on each backend: a command proves itself in the store
before Stripe is asked anything, and the same command twice refunds once.

Attacker's view: anyone who reaches the task queue can call `execute_refund` by name.
A forged approval, or a caller that is not the run, is refused in the store's
transaction and never reaches Stripe (localstripe holds no refund afterwards); the
refusal is on the audit. Auditor's view: the refund made is in the store under its
key, with Stripe's refund id and the approver whose signed approval it spent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.payments.registry import PaymentConnectors
from activities.payments.remote_refund import answer_remote_refund, read_remote_state
from activities.refunds import RefundActivities
from activities.store.decision_queries import AuditQuery, audit_rows
from activities.store.effect_proofs import ProofCheck
from activities.store.refunds import list_refunds
from activities.store.rule_grants import match_rules
from activities.store.rule_schema import StandingRule
from signoff.service.handles import Store
from signoff.service.payment_orders import link_payment
from signoff.service.standing_rules import revoke
from tests.clock import clock_now
from tests.exposures import refund_exposure
from tests.payments.conftest import stripe_settings
from tests.payments.localstripe import LocalStripe, running_localstripe
from tests.rules import make_rule
from tests.store.proofs import (
    PROOF_KEYS,
    PROOF_SIGNER,
    RUN_ID,
    as_run,
    proven_command,
    signed_approval,
)
from tests.store.test_waiting_actions import LATER, NOW
from tests.workflow.approvals import signed_by_an_impostor
from workflows.actions import PendingAction, RefundCommand
from workflows.approval_policy import money, recomputed_hash, state_hash
from workflows.rule_contracts import RuleMatchRequest

TICKET, ORDER = "T-2210", "C-2210"


@pytest.fixture
def server() -> Iterator[LocalStripe]:
    with running_localstripe() as running:
        yield running


@pytest.fixture
def stripe_payments(tmp_path: Path, server: LocalStripe) -> PaymentConnectors:
    home = tmp_path / "stripe-home"
    home.mkdir()
    return PaymentConnectors(stripe_settings(home, server))


def stripe_command(
    store: Engine, payments: PaymentConnectors, server: LocalStripe, amount_minor: int
) -> tuple[RefundCommand, str]:
    """A proven command for a refund of C-2210, paid 45.00 EUR in localstripe, judged on
    Stripe's state; and the charge's id."""
    action, charge = stripe_action(store, payments, server, amount_minor)
    proof = signed_approval(store, action, "alice")
    return proven_command(action, [proof], ticket_id=TICKET), charge


def stripe_action(
    store: Engine, payments: PaymentConnectors, server: LocalStripe, amount_minor: int
) -> tuple[PendingAction, str]:
    """The waiting action of a refund of C-2210, paid 45.00 EUR in localstripe, judged on
    Stripe's state; and the charge's id."""
    intent, charge = server.paid_charge(4500)
    link_payment(
        Store(store),
        payments,
        tenant_id="demo",
        order_id=ORDER,
        payment_ref=intent,
        customer_name="L",
    )
    connector = payments.for_tenant("demo")
    assert connector is not None
    state = read_remote_state(store, connector, "demo", TICKET)
    action = PendingAction(
        action_hash="0" * 64,
        tool_use_id="call-1",
        tool="refund",
        arguments={"amount": money(amount_minor), "currency": "EUR"},
        targets={"tenant_id": "demo", "order_id": ORDER},
        reason="The lamp arrived broken.",
        policy_version="test",
        state=state,
        state_hash=state_hash(state),
        mode="confirm",
        required_approvals=1,
        requested_at=NOW,
        expires_at=LATER,
        exposure=refund_exposure(money(amount_minor), ORDER),
    )
    return action.model_copy(update={"action_hash": recomputed_hash(action, RUN_ID)}), charge


async def test_the_same_command_twice_refunds_once(
    store: Engine, server: LocalStripe, stripe_payments: PaymentConnectors
) -> None:
    command, charge = stripe_command(store, stripe_payments, server, 1500)
    activities = RefundActivities(store, PROOF_KEYS, payments=stripe_payments)
    first = await as_run().run(activities.execute_refund, command)
    again = await as_run().run(activities.execute_refund, command)

    (made,) = server.refunds(charge)
    assert (first.status, first.refund_id) == ("refunded", made["id"])
    assert (again.status, again.refund_id) == ("refunded", made["id"])
    assert again.message.startswith("Already done")
    (row,) = list_refunds(store, "demo", ORDER)
    assert (row.id, row.amount_minor, row.idempotency_key) == (
        made["id"],
        1500,
        command.idempotency_key,
    )
    assert row.approver_list == ["alice"]
    assert made["metadata"] == {"signoff_idempotency_key": command.idempotency_key}


async def test_a_forged_approval_never_reaches_stripe(
    store: Engine, server: LocalStripe, stripe_payments: PaymentConnectors
) -> None:
    command, charge = stripe_command(store, stripe_payments, server, 1500)
    forged = command.model_copy(
        update={"proofs": [signed_by_an_impostor(command.proofs[0], RUN_ID)]}
    )
    result = await as_run().run(
        RefundActivities(store, PROOF_KEYS, payments=stripe_payments).execute_refund, forged
    )

    assert result.status == "refused"
    assert "not signed by a signoff front end" in result.message
    assert server.refunds(charge) == []
    refused = audit_rows(store, AuditQuery(tenant_id="demo", kind="refused"), batch=100)
    assert [row.action_hash for row in refused] == [command.action_hash]


async def test_a_caller_that_is_not_the_run_never_reaches_stripe(
    store: Engine, server: LocalStripe, stripe_payments: PaymentConnectors
) -> None:
    command, charge = stripe_command(store, stripe_payments, server, 1500)
    result = await as_run("run-demo-someone-else").run(
        RefundActivities(store, PROOF_KEYS, payments=stripe_payments).execute_refund, command
    )

    assert result.status == "refused"
    assert "only the run itself" in result.message
    assert server.refunds(charge) == []
    assert list_refunds(store, "demo", ORDER) == []


async def test_a_refund_beyond_what_stripe_says_remains_is_refused(
    store: Engine, server: LocalStripe, stripe_payments: PaymentConnectors
) -> None:
    # localstripe would accept it: the connector's own check on Stripe's figures refuses.
    command, charge = stripe_command(store, stripe_payments, server, 4600)
    result = await as_run().run(
        RefundActivities(store, PROOF_KEYS, payments=stripe_payments).execute_refund, command
    )

    assert result.status == "refused"
    assert "more than what remains refundable" in result.message
    assert server.refunds(charge) == []


def rule_granted(store: Engine, action: PendingAction, rule_id: str) -> RefundCommand:
    """The command as the gate sends it when a standing rule matched: the rule's grant
    stands in for a reviewer's approval."""
    request = RuleMatchRequest(run_id=RUN_ID, tenant_id="demo", ticket_id=TICKET, action=action)
    match = match_rules(store, request, PROOF_KEYS, clock_now())
    assert match.grant is not None and match.grant.rule_id == rule_id, match
    granted = action.model_copy(update={"rule_grant": match.grant})
    return proven_command(granted, [], ticket_id=TICKET)


def rule_uses(store: Engine, rule_id: str) -> int:
    with Session(store) as session:
        rule = session.get(StandingRule, rule_id)
        assert rule is not None
        return rule.uses


def test_a_standing_rule_approves_a_stripe_refund_and_spends_one_use(
    store: Engine, server: LocalStripe, stripe_payments: PaymentConnectors
) -> None:
    rule = make_rule(store, PROOF_SIGNER, max_uses=2)
    action, charge = stripe_action(store, stripe_payments, server, 1500)
    command = rule_granted(store, action, rule.id)
    connector = stripe_payments.for_tenant("demo")
    assert connector is not None

    first = answer_remote_refund(store, connector, command, ProofCheck(PROOF_KEYS, RUN_ID))
    again = answer_remote_refund(store, connector, command, ProofCheck(PROOF_KEYS, RUN_ID))

    (made,) = server.refunds(charge)
    assert (first.result.status, first.result.refund_id) == ("refunded", made["id"])
    assert again.result.message.startswith("Already done")
    (row,) = list_refunds(store, "demo", ORDER)
    assert row.approver_list == [f"rule:{rule.id}"]
    assert rule_uses(store, rule.id) == 1  # the retry spent nothing more
    used = audit_rows(store, AuditQuery(tenant_id="demo", kind="rule_used"), batch=10)
    assert [entry.action_hash for entry in used] == [command.action_hash]


def test_a_revoked_standing_rule_never_reaches_stripe(
    store: Engine, server: LocalStripe, stripe_payments: PaymentConnectors
) -> None:
    rule = make_rule(store, PROOF_SIGNER)
    action, charge = stripe_action(store, stripe_payments, server, 1500)
    command = rule_granted(store, action, rule.id)
    revoke(Store(store), "admin", "demo", rule.id)
    connector = stripe_payments.for_tenant("demo")
    assert connector is not None

    answer = answer_remote_refund(store, connector, command, ProofCheck(PROOF_KEYS, RUN_ID))

    assert answer.result.status == "approver_invalid"
    assert f"{rule.id} was revoked by admin" in answer.result.message
    assert "waits for a reviewer" in answer.result.message
    assert server.refunds(charge) == []
    assert list_refunds(store, "demo", ORDER) == []
    assert rule_uses(store, rule.id) == 0
    refused = audit_rows(store, AuditQuery(tenant_id="demo", kind="refused"), batch=10)
    assert [entry.action_hash for entry in refused] == [command.action_hash]
