"""A Stripe that is slow but answers (each call 2.5 s) refunds exactly once.

The refund's effect makes three calls to Stripe in one activity attempt. Were the
attempt's time limit shorter than those calls, Temporal would time it out while its
calls still ran and start a second attempt beside it: localstripe honours no
idempotency key, so the second attempt's refund would be a second one. The limit is
derived from the connector's own timeout and call count (workflows/run_limits.py), so
the one attempt completes: one refund at Stripe, one ledger row, one attempt. On the
dev server, whose activity timeouts are real.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from sqlalchemy import Engine
from temporalio.client import WorkflowHistory
from temporalio.testing import WorkflowEnvironment

from activities.payments.registry import PaymentConnectors
from activities.run_limits import WorkerLimits
from activities.store import list_refunds
from signoff.config.settings import Settings
from signoff.payments.stripe_platform import REFUND_CALLS
from testkit.slow_stripe import slow_stripe
from tests.conftest import dev_server as started_dev_server
from tests.e2e.test_crash_after_commit import refund_attempts
from tests.payments.conftest import ORDER, link_paid_order, stripe_settings
from tests.payments.localstripe import LocalStripe
from tests.workflow.approvals import decide, decision, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.actions import EXECUTE_REFUND_ACTIVITY
from workflows.contracts import RunOutcome
from workflows.gate_store import REFUND_CALL_TIMEOUT

pytestmark = pytest.mark.devserver

# How long Stripe takes to answer each call: under the connector's default timeout
# (SIGNOFF_STRIPE_TIMEOUT_SECONDS), and long enough that three of them and the store's
# part need more than the store's part alone.
DELAY_SECONDS = 2.5
CALL_TIMEOUT_SECONDS = Settings.model_fields["stripe_timeout_seconds"].default
# The proposal reads the payment through the slow Stripe too: two calls.
PROPOSED_WITHIN_SECONDS = 60.0
REFUND = ("refund", {"amount": "12.50", "reason": "The vase arrived broken."})


@pytest.fixture
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    async with started_dev_server() as env:
        yield env


def refund_time_limits(history: WorkflowHistory) -> list[timedelta]:
    """The start-to-close timeout each execute_refund activity was scheduled with."""
    return [
        event.activity_task_scheduled_event_attributes.start_to_close_timeout.ToTimedelta()
        for event in history.events
        if event.activity_task_scheduled_event_attributes.activity_type.name
        == EXECUTE_REFUND_ACTIVITY
    ]


async def test_a_slow_stripe_refunds_once_within_the_derived_time_limit(
    dev_server: WorkflowEnvironment,
    seeded_engine: Engine,
    localstripe: LocalStripe,
    payments: PaymentConnectors,
    stripe_home: Settings,
) -> None:
    _, charge = link_paid_order(seeded_engine, payments, localstripe, 4999)
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded."))
    with slow_stripe(localstripe.url, DELAY_SECONDS) as slow:
        settings = stripe_settings(
            stripe_home.home,
            localstripe,
            stripe_api_base=slow.url,
            stripe_timeout_seconds=CALL_TIMEOUT_SECONDS,
        )
        slow_payments = PaymentConnectors(settings)
        # The worker's own limits, as `signoff worker` answers them: with the tenant's
        # payment platform's call budget.
        limits = WorkerLimits(settings, payments=slow_payments).limits_for
        async with gate_run(
            dev_server, model, seeded_engine, limits=limits, payments=slow_payments
        ) as handle:
            (action,) = await pending_actions(handle, within=PROPOSED_WITHIN_SECONDS)
            slow.calls.clear()  # from here on: the effect's calls alone
            await decide(handle, decision(seeded_engine, "alice", action.action_hash))
            outcome = await handle.result()
        history = await handle.fetch_history()
        await replay(handle)

    assert len(slow.calls) == REFUND_CALLS, slow.calls  # each answered after DELAY_SECONDS
    assert slow.posts("/v1/refunds") == 1
    (made,) = localstripe.refunds(charge)
    assert made["amount"] == 1250
    (row,) = list_refunds(seeded_engine, "demo", ORDER)
    assert row.id == made["id"]
    assert refund_attempts(history) == [1]  # never timed out, never tried beside itself
    needed = REFUND_CALL_TIMEOUT + timedelta(seconds=REFUND_CALLS * CALL_TIMEOUT_SECONDS)
    assert refund_time_limits(history) == [needed]
    assert isinstance(outcome, RunOutcome)
    assert outcome.effects_performed == [f"refund 12.50 EUR on order {ORDER} (refund {made['id']})"]
