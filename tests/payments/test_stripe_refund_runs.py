"""Refunds through Stripe, end to end on a time-skipping server: the real workflow,
gateway and refund activities, the real `stripe` SDK, and localstripe as Stripe.

What each test shows: an approved refund appears in Stripe exactly once with the
approved amount and signoff's key in its metadata (the amounts the model and the
reviewer saw came from Stripe); a partial refund leaves the rest refundable and a
second refund beyond the charge is refused; the same approval delivered twice refunds
once; a Stripe that goes silent during the refund is an unknown outcome, which
`signoff reconcile` settles by finding the refund by key, and never refunds again.
"""

from __future__ import annotations

import asyncio
import json
import time
from decimal import Decimal

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.payments.registry import PaymentConnectors
from activities.payments.stripe_connector import StripeConnector
from activities.store import list_refunds
from activities.store.settlements import settlement_of
from signoff.config.settings import Settings
from signoff.config.stripe_keys import read_key
from signoff.payments.registry import TenantPlatform
from tests.payments.conftest import ORDER, TEST_TIMEOUT_SECONDS, link_paid_order
from tests.payments.localstripe import LocalStripe, LostOnRefund, SilentOnRefund
from tests.workflow.approvals import (
    UPDATE_SECONDS,
    decide,
    decision,
    gate_run,
    pending_actions,
    results_of_turn,
    with_proof,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from tests.workflow.test_approvals_unknown import reconcile_cli
from workflows.actions import DecisionResult
from workflows.agent_run import AgentRun
from workflows.contracts import RunOutcome

LOOK_UP = ("get_order", {})
# Real seconds for a paused localstripe to carry out what it received once resumed.
CATCH_UP_SECONDS = 30.0


def refund_call(amount: str) -> tuple[str, dict[str, str]]:
    return ("refund", {"amount": amount, "reason": "The vase arrived broken."})


async def test_an_approved_refund_happens_once_in_stripe(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    localstripe: LocalStripe,
    payments: PaymentConnectors,
) -> None:
    _, charge = link_paid_order(seeded_engine, payments, localstripe, 4999)
    model = FakeModel().enqueue(
        tool_reply(LOOK_UP), tool_reply(refund_call("12.50")), text_reply("Refunded.")
    )
    async with gate_run(time_skipping_env, model, seeded_engine, payments=payments) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    # What the model and the reviewer saw came from Stripe, not the shop's 89.90.
    (looked_up,) = results_of_turn(model.history[1])
    order = json.loads(looked_up.content)
    assert (order["amount_paid"], order["currency"], order["amount_refunded"]) == (
        "49.99",
        "EUR",
        "0.00",
    )
    assert (action.state.paid_minor, action.state.refunded_minor) == (4999, 0)
    key = f"{handle.id}:refund:{action.action_hash}"
    (made,) = localstripe.refunds(charge)
    assert (made["amount"], made["metadata"]) == (1250, {"signoff_idempotency_key": key})
    (result,) = results_of_turn(model.history[2])
    assert json.loads(result.content)["refund_id"] == made["id"]
    (row,) = list_refunds(seeded_engine, "demo", ORDER)
    assert (row.id, row.amount, row.idempotency_key) == (made["id"], Decimal("12.50"), key)
    assert isinstance(outcome, RunOutcome)
    assert outcome.effects_performed == [f"refund 12.50 EUR on order {ORDER} (refund {made['id']})"]


async def test_a_partial_refund_then_one_beyond_the_charge_is_refused(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    localstripe: LocalStripe,
    payments: PaymentConnectors,
) -> None:
    _, charge = link_paid_order(seeded_engine, payments, localstripe, 3000)
    first = FakeModel().enqueue(tool_reply(refund_call("20.00")), text_reply("Part refunded."))
    async with gate_run(time_skipping_env, first, seeded_engine, payments=payments) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        await handle.result()

    # Stripe now says 10.00 remain; 20.00 more is beyond the charge.
    second = FakeModel().enqueue(tool_reply(refund_call("20.00")), text_reply("Cannot."))
    async with gate_run(
        time_skipping_env, second, seeded_engine, payments=payments, request_id="second"
    ) as handle:
        outcome = await handle.result()
    await replay(handle)

    (refusal,) = results_of_turn(second.history[1])
    assert refusal.is_error
    assert "10.00" in refusal.content  # what remains refundable, read from Stripe
    assert [r["amount"] for r in localstripe.refunds(charge)] == [2000]
    assert isinstance(outcome, RunOutcome) and outcome.effects_performed == []


async def test_the_same_approval_delivered_twice_refunds_once(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    localstripe: LocalStripe,
    payments: PaymentConnectors,
) -> None:
    _, charge = link_paid_order(seeded_engine, payments, localstripe, 4999)
    model = FakeModel().enqueue(tool_reply(refund_call("10.00")), text_reply("Refunded."))
    async with gate_run(time_skipping_env, model, seeded_engine, payments=payments) as handle:
        (action,) = await pending_actions(handle)
        approval = with_proof(handle, decision(seeded_engine, "alice", action.action_hash))
        answers = await asyncio.wait_for(
            asyncio.gather(
                handle.execute_update(AgentRun.decide, approval),
                handle.execute_update(AgentRun.decide, approval),
                return_exceptions=True,
            ),
            UPDATE_SECONDS,
        )
        outcome = await handle.result()
    await replay(handle)

    approved = [a for a in answers if isinstance(a, DecisionResult) and a.status == "approved"]
    assert approved, answers  # at least one delivery counted; never two refunds
    assert [r["amount"] for r in localstripe.refunds(charge)] == [1000]
    assert len(list_refunds(seeded_engine, "demo", ORDER)) == 1
    assert isinstance(outcome, RunOutcome) and len(outcome.effects_performed) == 1


class SilentConnectors(PaymentConnectors):
    """Stripe goes silent just as the refund is sent (SilentOnRefund), or the request is
    lost before Stripe sees it (LostOnRefund)."""

    def __init__(self, settings: Settings, transport: SilentOnRefund | LostOnRefund) -> None:
        super().__init__(settings)
        self.transport = transport

    def _connector(self, tenant: TenantPlatform) -> StripeConnector:
        return StripeConnector(
            read_key(tenant.source),
            api_base=self._settings.stripe_api_base,
            timeout_seconds=TEST_TIMEOUT_SECONDS,
            http_client=self.transport,
        )


async def test_stripe_silent_during_the_refund_is_unknown_until_reconcile_finds_it(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    localstripe: LocalStripe,
    payments: PaymentConnectors,
    stripe_home: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, charge = link_paid_order(seeded_engine, payments, localstripe, 4999)
    silent = SilentConnectors(stripe_home, SilentOnRefund(localstripe, TEST_TIMEOUT_SECONDS))
    model = FakeModel().enqueue(tool_reply(refund_call("10.00")), text_reply("A person checks."))
    async with gate_run(time_skipping_env, model, seeded_engine, payments=silent) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert isinstance(silent.transport, SilentOnRefund)
    assert silent.transport.silenced == 1  # asked once, then never again without knowing
    (result,) = results_of_turn(model.history[1])
    assert result.is_error and "outcome unknown: a person will check" in result.content
    assert isinstance(outcome, RunOutcome)
    (unknown,) = outcome.effects_unknown
    assert list_refunds(seeded_engine, "demo", ORDER) == []

    localstripe.resume()  # Stripe is back, and carries out what it had received
    key = unknown.idempotency_key
    deadline = time.monotonic() + CATCH_UP_SECONDS
    while not localstripe.refunds_under(charge, key):
        assert time.monotonic() < deadline, "localstripe never carried out the refund"
        time.sleep(0.05)

    monkeypatch.setenv("SIGNOFF_STRIPE_KEYS_FILE", str(stripe_home.stripe_keys_file))
    monkeypatch.setenv("SIGNOFF_STRIPE_API_BASE", localstripe.url)
    monkeypatch.setenv("SIGNOFF_HOME", str(stripe_home.home))
    cli = (reconcile_cli, time_skipping_env, seeded_engine, monkeypatch, handle.id)
    settled = await asyncio.to_thread(*cli)
    again = await asyncio.to_thread(*cli)

    (made,) = localstripe.refunds(charge)
    assert settled.exit_code == 0, settled.output
    assert f"HAPPENED, refund {made['id']}" in settled.output
    assert "approved by alice" in settled.output
    assert again.output == settled.output  # the answer was kept, not asked again
    recorded = settlement_of(seeded_engine, key)
    assert recorded is not None and recorded.refund_id == made["id"]
    (row,) = list_refunds(seeded_engine, "demo", ORDER)
    assert (row.id, row.amount_minor) == (made["id"], 1000)


async def test_a_refund_lost_before_stripe_saw_it_is_settled_as_not_made(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    localstripe: LocalStripe,
    payments: PaymentConnectors,
    stripe_home: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, charge = link_paid_order(seeded_engine, payments, localstripe, 4999)
    lost = SilentConnectors(stripe_home, LostOnRefund(TEST_TIMEOUT_SECONDS))
    model = FakeModel().enqueue(tool_reply(refund_call("10.00")), text_reply("A person checks."))
    async with gate_run(time_skipping_env, model, seeded_engine, payments=lost) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()

    (result,) = results_of_turn(model.history[1])
    assert result.is_error and "outcome unknown: a person will check" in result.content
    assert isinstance(outcome, RunOutcome)
    (unknown,) = outcome.effects_unknown

    monkeypatch.setenv("SIGNOFF_STRIPE_KEYS_FILE", str(stripe_home.stripe_keys_file))
    monkeypatch.setenv("SIGNOFF_STRIPE_API_BASE", localstripe.url)
    monkeypatch.setenv("SIGNOFF_HOME", str(stripe_home.home))
    cli = (reconcile_cli, time_skipping_env, seeded_engine, monkeypatch, handle.id)
    settled = await asyncio.to_thread(*cli)

    assert settled.exit_code == 0, settled.output
    assert "DID NOT HAPPEN" in settled.output
    recorded = settlement_of(seeded_engine, unknown.idempotency_key)
    assert recorded is not None and recorded.outcome == "not_refunded"
    assert localstripe.refunds(charge) == [] and list_refunds(seeded_engine, "demo", ORDER) == []


async def test_reconcile_with_stripe_unreachable_settles_nothing(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    localstripe: LocalStripe,
    payments: PaymentConnectors,
    stripe_home: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    link_paid_order(seeded_engine, payments, localstripe, 4999)
    lost = SilentConnectors(stripe_home, LostOnRefund(TEST_TIMEOUT_SECONDS))
    model = FakeModel().enqueue(tool_reply(refund_call("10.00")), text_reply("A person checks."))
    async with gate_run(time_skipping_env, model, seeded_engine, payments=lost) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    assert isinstance(outcome, RunOutcome)
    (unknown,) = outcome.effects_unknown

    monkeypatch.setenv("SIGNOFF_STRIPE_KEYS_FILE", str(stripe_home.stripe_keys_file))
    monkeypatch.setenv("SIGNOFF_STRIPE_API_BASE", "http://127.0.0.1:9")  # nothing listens
    monkeypatch.setenv("SIGNOFF_HOME", str(stripe_home.home))
    cli = (reconcile_cli, time_skipping_env, seeded_engine, monkeypatch, handle.id)
    unsettled = await asyncio.to_thread(*cli)

    assert unsettled.exit_code == 1, unsettled.output
    assert "not settled" in unsettled.output and "run reconcile again" in unsettled.output
    assert "Traceback" not in unsettled.output
    assert settlement_of(seeded_engine, unknown.idempotency_key) is None
