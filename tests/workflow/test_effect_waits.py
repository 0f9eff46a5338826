"""An approved refund whose payment platform cannot take it now waits for it
(workflows/effect_waits.py): the run parks on a durable timer, says what it waits for,
and refunds exactly once when the platform is back; when the approval runs out first,
nothing is refunded, the audit says so and the model is told "approved but not carried
out". A breaker exists to stop hammering a sick platform, not to void a decision."""

from __future__ import annotations

import asyncio
import re
import time
from decimal import Decimal

from sqlalchemy import Engine, select
from temporalio import activity
from temporalio.client import WorkflowHandle
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from activities.payments.connector import PaymentUnavailable
from activities.refunds import RefundActivities, payment_failure
from activities.store.database import use_session
from activities.store.schema import DecisionRow
from tests.workflow.approvals import (
    TEST_KEYS,
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
    results_of_turn,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.actions import (
    EXECUTE_REFUND_ACTIVITY,
    READ_ACTION_STATE_ACTIVITY,
    ActionState,
    ActionStateRequest,
    RefundCommand,
    RefundResult,
)
from workflows.agent_run import AgentRun
from workflows.connector_waits import PAYMENTS_SWITCHED_OFF, ConnectorWait, EffectWaiting

REFUND = ("refund", {"amount": "10.00", "reason": "The vase arrived broken."})
COOL_DOWN_SECONDS = 120
# The tenant's `give_up_after` (its Stripe keys file): far sooner than the approval ends.
GIVE_UP_AFTER_SECONDS = 600
WAIT_SECONDS = 30


class PlatformDown(RefundActivities):
    """The payment platform's breaker is open for the first `down` attempts (None: for
    ever); then the ledger's own refund."""

    def __init__(self, engine: Engine, down: int | None) -> None:
        super().__init__(engine, TEST_KEYS)
        self.down = down
        self.attempts = 0

    @activity.defn(name=EXECUTE_REFUND_ACTIVITY)
    async def execute_refund(self, command: RefundCommand) -> RefundResult:
        self.attempts += 1
        if self.down is None or self.attempts <= self.down:
            return RefundResult(
                status="unavailable",
                message="The payments:demo connector is switched off.",
                wait=ConnectorWait(
                    connector="payments:demo", retry_after_seconds=COOL_DOWN_SECONDS
                ),
            )
        return await super().execute_refund(command)


async def waiting_for_platform(handle: WorkflowHandle[AgentRun, object]) -> EffectWaiting:
    """The run's wait, as its `state` query shows it (the test server's clock does not
    move while nobody waits on the run's result)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        waiting = (await handle.query(AgentRun.state)).effects_waiting
        if waiting:
            return waiting[0]
        assert time.monotonic() < deadline, "the run never said it waits for its platform"
        await asyncio.sleep(0.05)


def audit_kinds(engine: Engine, run_id: str) -> list[tuple[str, str]]:
    with use_session(engine) as session:
        rows = session.execute(
            select(DecisionRow.kind, DecisionRow.reason)
            .where(DecisionRow.run_id == run_id)
            .order_by(DecisionRow.seq)
        )
        return [(kind, reason) for kind, reason in rows]


async def test_an_approved_refund_waits_for_its_platform_and_is_made_once(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded."))
    ledger = PlatformDown(seeded_engine, down=3)
    async with gate_run(time_skipping_env, model, seeded_engine, refunds=ledger) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        waiting = await waiting_for_platform(handle)
        assert (waiting.connector, waiting.action_hash) == ("payments:demo", action.action_hash)
        assert (waiting.next_try_at - waiting.since).total_seconds() == COOL_DOWN_SECONDS
        assert waiting.give_up_at == action.expires_at
        assert "approved; waiting for payments:demo since" in waiting.line()
        # The approval is on the audit while the refund waits: nothing voided it.
        assert [kind for kind, _ in audit_kinds(seeded_engine, handle.id)] == ["approved"]
        outcome = await handle.result()
        assert (await handle.query(AgentRun.state)).effects_waiting == []
    await replay(handle)
    assert outcome.status == "completed"
    assert ledger.attempts == 4  # three "not now", then the refund
    assert refunded(seeded_engine, "C-1042") == [Decimal("10.00")]
    (result,) = results_of_turn(model.history[1])
    assert not result.is_error and '"status": "refunded"' in result.content


async def test_an_approval_that_runs_out_first_is_approved_but_not_carried_out(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("A colleague will follow up."))
    ledger = PlatformDown(seeded_engine, down=None)
    overrides = {"refunds": ledger, "approval_ttl_seconds": 3600}
    async with gate_run(time_skipping_env, model, seeded_engine, **overrides) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    await replay(handle)
    assert outcome.status == "completed"
    assert refunded(seeded_engine, "C-1042") == []
    assert ledger.attempts > 2  # it kept asking until the approval ran out
    (result,) = results_of_turn(model.history[1])
    assert result.is_error and "approved but not carried out" in result.content
    assert "payments:demo was unavailable for" in result.content
    assert result.content.endswith("until the approval ran out. Do not retry it.")
    kinds = audit_kinds(seeded_engine, handle.id)
    assert [kind for kind, _ in kinds] == ["approved", "refused"]
    assert "approved but not carried out" in kinds[-1][1]
    assert any("approved but not carried out" in line for line in outcome.not_performed)


class PlatformSwitchedOff(RefundActivities):
    """The tenant's payment breaker is open when the refund is proposed."""

    @activity.defn(name=READ_ACTION_STATE_ACTIVITY)
    async def read_action_state(self, request: ActionStateRequest) -> ActionState:
        raise ApplicationError(
            "The payments:demo connector is switched off; no refund can be proposed now.",
            type=PAYMENTS_SWITCHED_OFF,
            non_retryable=True,
        )


async def test_a_refund_proposed_while_the_platform_is_switched_off_is_refused_at_once(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    """Nothing approved is lost by it: no reviewer is asked to decide on a refund that
    could not be made now."""
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("A colleague will follow up."))
    ledger = PlatformSwitchedOff(seeded_engine, TEST_KEYS)
    async with gate_run(time_skipping_env, model, seeded_engine, refunds=ledger) as handle:
        outcome = await handle.result()
    assert outcome.status == "completed"
    (result,) = results_of_turn(model.history[1])
    assert result.is_error and "no refund can be proposed now" in result.content
    assert audit_kinds(seeded_engine, handle.id) == []  # no request ever waited


class PlatformSaysNotNow(RefundActivities):
    """Every attempt finds the platform answering 503 before it did anything, as
    refunds.payment_failure reports it for a tenant whose `give_up_after` is set."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine, TEST_KEYS)
        self.attempts = 0

    @activity.defn(name=EXECUTE_REFUND_ACTIVITY)
    async def execute_refund(self, command: RefundCommand) -> RefundResult:
        self.attempts += 1
        unavailable = PaymentUnavailable("Stripe answered HTTP 503")
        raise payment_failure(unavailable, "payments:demo", GIVE_UP_AFTER_SECONDS)


async def test_the_tenants_give_up_after_ends_the_wait_before_the_approval_does(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("A colleague will follow up."))
    ledger = PlatformSaysNotNow(seeded_engine)
    async with gate_run(time_skipping_env, model, seeded_engine, refunds=ledger) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        # Each try's attempts back off in real time, while the server's clock stands
        # still: the wait is read from its end, not watched.
        outcome = await handle.result()
    await replay(handle)
    assert refunded(seeded_engine, "C-1042") == []
    assert ledger.attempts > 1
    (result,) = results_of_turn(model.history[1])
    assert result.is_error and "approved but not carried out" in result.content
    # The tenant's ten minutes (and the last try's own attempts), not the approval's 24 h.
    waited = re.search(r"payments:demo was unavailable for (\d+) min", result.content)
    assert waited is not None, result.content
    assert GIVE_UP_AFTER_SECONDS // 60 <= int(waited.group(1)) < 60
    assert "until its give_up_after (payments:demo's setting) had passed" in result.content
    kinds = audit_kinds(seeded_engine, handle.id)
    assert [kind for kind, _ in kinds] == ["approved", "refused"]
    assert any("approved but not carried out" in line for line in outcome.not_performed)
