"""On signoff's own runs, every reviewer's decision row keeps the action its signed
decision names and shows that action's order and amount, by whichever path it reaches
the audit: a first approval through `record_decision` while the action waits, an edit's
approval once the edited action is held, the last approval in its effect's transaction,
a rejection before its hold is released. `audit verify`'s check then finds nothing
unproven and nothing "not covered" (activities/store/audit_actions.py)."""

from __future__ import annotations

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment

from activities.store.audit_actions import REVIEWER_KINDS
from activities.store.audit_proofs import unproven_decisions
from activities.store.database import use_session
from activities.store.schema import DecisionRow
from signoff.config.decision_signatures import AuditKeys
from tests.workflow.approvals import (
    TEST_SIGNER,
    decide,
    decision,
    gate_run,
    pending_actions,
    state_when,
)
from tests.workflow.fakes import FakeModel, text_reply, tool_reply
from tests.workflow.test_approvals_edit import built_in, edit, refund_call

KEYS = AuditKeys(TEST_SIGNER.verification_keys().keys)


def reviewer_rows(
    engine: Engine, run_id: str
) -> list[tuple[str | None, str | None, int | None, bool]]:
    with use_session(engine) as session:
        rows = session.scalars(
            select(DecisionRow)
            .where(DecisionRow.run_id == run_id, DecisionRow.kind.in_(REVIEWER_KINDS))
            .order_by(DecisionRow.seq)
        )
        return [
            (row.reviewer_id, row.order_id, row.amount_minor, row.action is not None)
            for row in rows
        ]


def all_proven(engine: Engine) -> None:
    report = unproven_decisions(engine, KEYS)
    assert report.checked > 0 and report.unproven == [] and report.not_covered == []


async def test_four_eyes_with_an_edit_keeps_each_approvals_action(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(refund_call("310.00")), text_reply("Done."))
    run = gate_run(time_skipping_env, model, seeded_engine, ticket_id="T-3107", **built_in())
    async with run as handle:
        (original,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", original.action_hash))
        bob = edit(seeded_engine, handle, "bob", original, {"amount": "250.00"}, "partial")
        answer = await decide(handle, bob)
        await state_when(
            handle,
            lambda s: [a.action_hash for a in s.pending_actions] == [answer.action_hash],
            "waiting on the edited action",
        )
        await decide(handle, decision(seeded_engine, "alice", answer.action_hash))
        await handle.result()

    # Alice's of the original; bob's approval of his edit, once the edited action is held;
    # alice's of the edited action, in its effect's transaction.
    assert reviewer_rows(seeded_engine, handle.id) == [
        ("alice", "C-3107", 31000, True),
        ("bob", "C-3107", 25000, True),
        ("alice", "C-3107", 25000, True),
    ]
    all_proven(seeded_engine)


async def test_a_rejection_keeps_its_action(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(refund_call("89.90")), text_reply("No refund."))
    async with gate_run(time_skipping_env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        no = decision(seeded_engine, "bob", action.action_hash, "reject", reason="no photo")
        await decide(handle, no)
        await handle.result()

    assert reviewer_rows(seeded_engine, handle.id) == [("bob", "C-1042", 8990, True)]
    all_proven(seeded_engine)
