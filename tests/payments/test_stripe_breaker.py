"""Stripe behind the tenant's breaker (activities/payments/breaker_gate.py), against a
real localstripe: Stripe silent twice (paused) opens `payments:demo`; while open an
approved refund is answered `unavailable` with the cool-down (nothing refunded, its
approvals unspent, so the run waits for it: workflows/effect_waits.py) and Stripe is not
asked; after the cool-down one trial, with Stripe back, refunds and closes the breaker."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, select
from temporalio.exceptions import ApplicationError

from activities.connectors.breaker import BreakerPolicy
from activities.connectors.breakers import Breakers
from activities.payments.registry import PaymentConnectors
from activities.refunds import RefundActivities
from activities.store.connector_breakers import record_failure
from activities.store.database import use_session
from activities.store.schema import DecisionRow
from activities.tool_gateway import ToolGateway
from tests.payments.conftest import stripe_settings
from tests.payments.localstripe import LocalStripe, running_localstripe
from tests.store.proofs import PROOF_KEYS, as_run
from tests.store.test_stripe_effect import stripe_command
from workflows.actions import ActionStateRequest
from workflows.connector_waits import PAYMENTS_SWITCHED_OFF
from workflows.contracts import ToolCallInput

POLICY = BreakerPolicy(
    failures_to_open=2, cooldown=timedelta(minutes=5), trial_timeout=timedelta(minutes=1)
)


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def server() -> Iterator[LocalStripe]:
    with running_localstripe() as running:
        yield running


async def test_a_silent_stripe_opens_the_breaker_and_a_trial_closes_it(
    seeded_engine: Engine, server: LocalStripe, tmp_path: Path
) -> None:
    store = seeded_engine
    payments = PaymentConnectors(stripe_settings(tmp_path, server))
    command, charge = stripe_command(store, payments, server, 1500)
    clock = Clock()
    breakers = Breakers(store, POLICY, clock)
    activities = RefundActivities(store, PROOF_KEYS, payments=payments, breakers=breakers)

    server.pause()  # Stripe says nothing: each read times out
    try:
        for _ in range(2):
            with pytest.raises(ApplicationError, match="did not answer"):
                await as_run().run(activities.execute_refund, command)
        name, state = "payments:demo", await breakers.state("payments:demo")
        assert state[0] == "open" and state[1].consecutive_failures == 2
        waiting = await as_run().run(activities.execute_refund, command)
        # A new refund is not even proposed while it is open: no reviewer is asked.
        with pytest.raises(ApplicationError, match="no refund can be proposed now") as closed:
            await as_run().run(
                activities.read_action_state,
                ActionStateRequest(tenant_id="demo", ticket_id="T-1042"),
            )
        assert closed.value.type == PAYMENTS_SWITCHED_OFF and closed.value.non_retryable
    finally:
        server.resume()
    assert waiting.status == "unavailable"
    assert f"The {name} connector is switched off after 2 failures" in waiting.message
    assert "Nothing was refunded yet" in waiting.message
    assert waiting.wait is not None and waiting.wait.connector == name
    assert waiting.wait.retry_after_seconds == POLICY.cooldown.total_seconds()
    with use_session(store) as session:
        kinds = list(session.scalars(select(DecisionRow.kind)))
    assert "refused" not in kinds  # nothing voided: the approval stands
    assert server.refunds(charge) == []

    clock.now += POLICY.cooldown + timedelta(seconds=1)  # the trial: Stripe is back
    made = await as_run().run(activities.execute_refund, command)
    assert made.status == "refunded" and len(server.refunds(charge)) == 1
    assert (await breakers.state(name))[0] == "closed"


async def test_a_refund_waiting_for_stripe_carries_the_tenants_give_up_after(
    seeded_engine: Engine, server: LocalStripe, tmp_path: Path
) -> None:
    """The tenant's keys file says how long an approved refund may wait for Stripe; the
    `unavailable` answer carries it to the run (workflows/effect_waits.py)."""
    store = seeded_engine
    settings = stripe_settings(tmp_path, server)
    assert settings.stripe_keys_file is not None
    keys = json.loads(settings.stripe_keys_file.read_text())
    keys["demo"]["give_up_after"] = "45m"
    settings.stripe_keys_file.write_text(json.dumps(keys))
    payments = PaymentConnectors(settings)
    command, charge = stripe_command(store, payments, server, 1500)
    _, activities = behind_an_open_breaker(store, payments)
    waiting = await as_run().run(activities.execute_refund, command)
    assert waiting.status == "unavailable" and waiting.wait is not None
    assert waiting.wait.give_up_after_seconds == 45 * 60
    assert server.refunds(charge) == []


async def test_reads_stay_available_while_an_approved_refund_waits_for_stripe(
    seeded_engine: Engine, server: LocalStripe, tmp_path: Path
) -> None:
    """The breaker holds back writes only: with `payments:demo` open and an approved
    refund waiting on it, the agent's order look-up still reads the payment from
    Stripe, and reading the ticket never touches it."""
    store = seeded_engine
    payments = PaymentConnectors(stripe_settings(tmp_path, server))
    command, charge = stripe_command(store, payments, server, 1500)
    breakers, activities = behind_an_open_breaker(store, payments)
    waiting = await as_run().run(activities.execute_refund, command)
    assert waiting.status == "unavailable"  # the write waits on the open breaker

    gateway = ToolGateway(store, payments=payments)
    looked_up = await as_run().run(gateway.run_tool, read_call("get_order", command.ticket_id))
    ticket = await as_run().run(gateway.run_tool, read_call("read_ticket", command.ticket_id))
    assert not looked_up.is_error and not ticket.is_error
    order = json.loads(looked_up.content)
    assert (order["found"], order["order_id"], order["amount_paid"]) == (True, "C-2210", "45.00")
    assert (await breakers.state("payments:demo"))[0] == "open"
    assert server.refunds(charge) == []


def behind_an_open_breaker(
    store: Engine, payments: PaymentConnectors
) -> tuple[Breakers, RefundActivities]:
    """The refund activities with `payments:demo` open: Stripe silent as often as the
    policy allows."""
    clock = Clock()
    for _ in range(POLICY.failures_to_open):
        record_failure(store, "payments:demo", POLICY, clock(), "Stripe did not answer")
    breakers = Breakers(store, POLICY, clock)
    return breakers, RefundActivities(store, PROOF_KEYS, payments=payments, breakers=breakers)


def read_call(name: str, ticket_id: str) -> ToolCallInput:
    return ToolCallInput(
        run_id="run-demo-reads",
        tenant_id="demo",
        ticket_id=ticket_id,
        tool_use_id=f"toolu_{name}",
        name=name,
        arguments={},
        idempotency_key=f"run-demo-reads:{name}",
    )
