"""Decisions that arrive while the audit writes an earlier one are written, and the run
goes on waiting: it does not spin.

The audit's writer marks what it tried, and a waiter wakes when a record arrives that
was not tried. Records that came in while a write was in flight were written by the
same flush; before the fix they stayed marked as untried, so the waiter woke at once,
found nothing to write, and woke again, forever, inside one workflow task (the SDK's
deadlock detector then failed the task, and every retry did the same). Here the audit
is held on the first record until a refused attempt has joined the trail.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import Engine
from temporalio import activity
from temporalio.testing import WorkflowEnvironment

from activities.decisions import DecisionActivities
from signoff.config.decision_signatures import DecisionSigner
from tests.workflow.approvals import (
    TEST_KEYS,
    audit_caught_up,
    decide,
    decision,
    gate_run,
    pending_actions,
    refused,
    signed,
    state_when,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.actions import RECORD_DECISION_ACTIVITY, DecisionEvent
from workflows.contracts import RunOutcome

WAIT_SECONDS = 60  # a bound on waiting: the broken flush never gets there


class HeldAudit(DecisionActivities):
    """The real audit writer, held before its first write until the test lets go."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine, TEST_KEYS)
        self.writing = asyncio.Event()
        self.release = asyncio.Event()

    @activity.defn(name=RECORD_DECISION_ACTIVITY)
    async def record_decision(self, event: DecisionEvent) -> int:
        self.writing.set()
        await self.release.wait()
        return await super().record_decision(event)


async def test_records_that_arrive_during_a_write_are_written_and_the_run_waits(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    audit = HeldAudit(seeded_engine)
    call = tool_reply(("refund", {"amount": "310.00", "reason": "The lamp arrived broken."}))
    model = FakeModel().enqueue(call, text_reply("Refunded."))
    # 310.00 on C-3107: two approvals, so the run still waits after the first.
    async with gate_run(
        time_skipping_env, model, seeded_engine, audit=audit, ticket_id="T-3107"
    ) as handle:
        (action,) = await pending_actions(handle)
        first = signed(decision(seeded_engine, "alice", action.action_hash), handle.id)
        assert (await decide(handle, first)).status == "approval_recorded"
        await asyncio.wait_for(audit.writing.wait(), WAIT_SECONDS)
        # While alice's record is being written: her proof sent again is turned away
        # (no record: it decides nothing new); one signed with a key the run does not
        # know goes to `verify_decision`, is refused there and recorded.
        assert "already approved" in await refused(handle, first)
        stranger = decision(seeded_engine, "bob", action.action_hash)
        unknown = signed(stranger, handle.id, signer=DecisionSigner.generate())
        assert "is unknown here" in await refused(handle, unknown)
        audit.release.set()

        # The run still answers (a spinning task would answer nothing) and still waits.
        state = await state_when(
            handle,
            lambda s: s.status == "waiting_for_approval" and len(s.decisions) == 2,
            "waiting with both records",
            within=WAIT_SECONDS,
        )
        assert [d.kind for d in state.decisions] == ["approved", "refused"]
        await audit_caught_up(handle, seeded_engine)  # both, in the store

        second = decision(seeded_engine, "bob", action.action_hash)
        second = signed(second, handle.id, at=await time_skipping_env.get_current_time())
        assert (await decide(handle, second)).status == "approved"
        outcome = await asyncio.wait_for(handle.result(), WAIT_SECONDS)
    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, len(outcome.effects_performed)) == ("completed", 1)
    await replay(handle)
