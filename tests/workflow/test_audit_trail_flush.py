"""Decisions that arrive while the audit writes an earlier one are written, as what they
are, and the run goes on waiting: it does not spin.

The audit's writer marks what it tried, and a waiter wakes when a record arrives that
was not tried. Records that came in while a write was in flight were written by the
same flush; before the fix they stayed marked as untried, so the waiter woke at once,
found nothing to write, and woke again, forever, inside one workflow task (the SDK's
deadlock detector then failed the task, and every retry did the same). Here the audit
is held on the first record until a refused attempt has joined the trail.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import Engine, select
from temporalio import activity
from temporalio.testing import WorkflowEnvironment

from activities.decisions import DecisionActivities
from activities.store.audit_proofs import unproven_decisions
from activities.store.database import use_session
from activities.store.schema import DecisionRow
from signoff.config.decision_signatures import AuditKeys, DecisionSigner
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
from tests.workflow.test_approvals_edit import built_in, edit, refund_call
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


def audit_kinds(engine: Engine, run_id: str) -> list[tuple[str, str | None]]:
    with use_session(engine) as session:
        rows = session.execute(
            select(DecisionRow.kind, DecisionRow.reviewer_id)
            .where(DecisionRow.run_id == run_id)
            .order_by(DecisionRow.seq)
        )
        return [(kind, reviewer) for kind, reviewer in rows]


async def test_an_edit_during_a_write_is_audited_as_the_first_of_its_two_approvals(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    """Bob edits while alice's first approval is being written. Before the fix the same
    flush wrote his approval of the edited action too, before the gate held that action
    and knew it still needs four eyes: the audit said `approved` where it was the first
    of two (the inbox then showed no first approval on the edited request)."""
    audit = HeldAudit(seeded_engine)
    model = FakeModel().enqueue(tool_reply(refund_call("310.00")), text_reply("Refunded."))
    # 310.00 on C-3107, and still 250.00 after bob's edit: two approvals each.
    run = gate_run(
        time_skipping_env, model, seeded_engine, audit=audit, ticket_id="T-3107", **built_in()
    )
    async with run as handle:
        (original,) = await pending_actions(handle)
        assert (
            await decide(handle, decision(seeded_engine, "alice", original.action_hash))
        ).status == "approval_recorded"
        await asyncio.wait_for(audit.writing.wait(), WAIT_SECONDS)
        bob = edit(seeded_engine, handle, "bob", original, {"amount": "250.00"}, "partial")
        edited = await decide(handle, bob)
        audit.release.set()
        waiting = await state_when(
            handle,
            lambda s: [a.action_hash for a in s.pending_actions] == [edited.action_hash],
            "waiting on the edited action",
            within=WAIT_SECONDS,
        )
        assert waiting.pending_actions[0].required_approvals == 2
        await audit_caught_up(handle, seeded_engine)
        # While the edited action waits for its second reviewer, as the inbox reads it.
        assert audit_kinds(seeded_engine, handle.id) == [
            ("first_approval", "alice"),
            ("edited", "bob"),
            ("first_approval", "bob"),
        ]
        second = decision(seeded_engine, "alice", edited.action_hash)
        second = signed(second, handle.id, at=await time_skipping_env.get_current_time())
        assert (await decide(handle, second)).status == "approved"
        outcome = await asyncio.wait_for(handle.result(), WAIT_SECONDS)
    assert isinstance(outcome, RunOutcome) and outcome.status == "completed"
    assert audit_kinds(seeded_engine, handle.id)[3:] == [("approved", "alice"), ("executed", None)]
    report = unproven_decisions(seeded_engine, AuditKeys(dict(TEST_KEYS.keys)), "demo")
    assert report.unproven == []
    await replay(handle)
