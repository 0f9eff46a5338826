"""Someone who reaches the Temporal frontend runs a workflow of their own and calls
signoff's activities by name on signoff's task queue, while a real refund run waits for
its reviewer: `execute_refund` with the run's own action and two reviewers' names,
`release_pending_refund` of the run's hold, `record_decision` of an approval into its
trail; and, for its own id, a hold of the same order's exposure, a row in the
reviewers' inbox and a standing rule's match. Every call is refused (the effect and the
record demand proof; a run's holds and trail are its own; holds and matches come from a
run's own workflow task, and inbox rows from signoff's own runs), nothing reaches the
ledger, the order's exposure and the inbox are as they were, the refused refund is on
the record, and the run, approved for real, refunds once."""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.store import list_refunds
from activities.store.database import use_session
from activities.store.pending_refunds import pending_minor
from activities.store.schema import DecisionRow, WaitingAction
from tests.workflow.approvals import decide, decision, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, text_reply, tool_reply
from tests.workflow.rogue import RoguePlan, RogueRun
from workflows.actions import (
    ActionHold,
    DecisionEvent,
    DecisionRecord,
    PendingRefundRelease,
)
from workflows.refund_commands import refund_command

REFUND = ("refund", {"amount": "89.90", "reason": "The kettle arrived broken."})


async def test_a_rogue_workflow_moves_no_money_and_touches_no_run(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded."))
    async with gate_run(env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        signoff_queue = (await handle.describe()).task_queue
        held_before = pending_minor(seeded_engine, "demo", "C-1042", action.requested_at)
        # The run's own action, as its history shows it, naming two reviewers, no proof.
        names = refund_command(
            action, [], run_id=handle.id, ticket_id="T-1042", actor_id=None
        ).model_copy(update={"approvers": ["alice", "bob"]})
        rogue_id = f"rogue-{uuid.uuid4()}"
        # The same order, twice the amount, held as the rogue's own for a year.
        inflated = action.model_copy(
            update={
                "arguments": {**action.arguments, "amount": "179.80"},
                "expires_at": action.requested_at + timedelta(days=365),
            }
        )
        plan = RoguePlan(
            # Asking the standing rules too, as a run's gate does when an action starts to wait.
            hold=ActionHold(
                run_id=rogue_id,
                tenant_id="demo",
                ticket_id="T-1042",
                action=inflated,
                match_rules=True,
            ),
            signoff_queue=signoff_queue,
            command=names,
            release=PendingRefundRelease(run_id=handle.id, action_hash=action.action_hash),
            record=DecisionEvent(
                run_id=handle.id,
                tenant_id="demo",
                ticket_id="T-1042",
                sequence=99,
                record=DecisionRecord(
                    action_hash=action.action_hash,
                    kind="approved",
                    reviewer_id="alice",
                    at=action.requested_at,
                ),
            ),
        )
        rogue_queue = f"rogue-{uuid.uuid4()}"
        # In real time: skipping while the rogue's calls retry could reach the run's
        # 24 h expiry, and the run would record `expired` beside the refusal.
        with env.auto_time_skipping_disabled():
            async with Worker(env.client, task_queue=rogue_queue, workflows=[RogueRun]):
                said = await env.client.execute_workflow(
                    RogueRun.run, plan, id=rogue_id, task_queue=rogue_queue
                )

        refund, release, record, exposure, inbox = said
        assert refund.startswith("refund: refused") and "only the run itself" in refund
        assert release == "release_pending_refund: NotItsRun"
        assert record == "record_decision: NotItsRun"
        assert exposure == "hold_pending_refund: NotItsRun"
        assert inbox == "hold_waiting_action: NotItsRun"
        assert list_refunds(seeded_engine, "demo", "C-1042") == []
        # The run's hold still counts in the order's exposure.
        assert pending_minor(seeded_engine, "demo", "C-1042", action.requested_at) == held_before
        with use_session(seeded_engine) as session:
            rows = list(session.scalars(select(DecisionRow).where(DecisionRow.run_id == handle.id)))
            listed = list(session.scalars(select(WaitingAction.run_id)))
        assert listed == [handle.id]  # the run's own request, and nothing of the rogue's
        assert [row.kind for row in rows] == ["refused"]  # the attempt, and no approval
        assert "effect refused (called by workflow 'rogue-" in rows[0].reason

        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    assert outcome.status == "completed"
    assert len(list_refunds(seeded_engine, "demo", "C-1042")) == 1
