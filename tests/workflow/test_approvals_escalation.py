"""Escalation on the time-skipping server: a refund nobody decides on within its 2 h is
not ended but escalated to `support_lead` for 4 h, once. The lead approves it and the
refund happens once, under the same action hash; or nobody does, and the second
expiry ends it as an expiry always did ("no decision in time").
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment

from activities.store.database import use_session
from activities.store.schema import DecisionRow, WaitingAction
from tests.workflow.approvals import (
    WAIT_SECONDS,
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
    refused,
    results_of_turn,
    state_when,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from tests.workflow.team_policies import ESCALATES, add_team, refund_policy
from tests.workflow.test_python_tools import on_profile
from workflows.actions import PendingAction
from workflows.contracts import RunOutcome, RunState

REFUND = ("refund", {"amount": "50.00", "reason": "Half the set arrived broken."})
PAST_FIRST_EXPIRY = timedelta(hours=2, minutes=1)


def escalated(state: RunState) -> bool:
    return bool(state.pending_actions) and state.pending_actions[0].escalations == 1


async def test_an_expired_refund_escalates_and_the_new_role_approves_it_once(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    env = isolated_env  # its own server: the clock moves 2 h
    add_team(seeded_engine)
    profiles = refund_policy(tmp_path, ESCALATES)
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded 50.00."))
    async with gate_run(env, model, seeded_engine, **on_profile(profiles)) as handle:
        (action,) = await pending_actions(handle)
        too_early = await refused(handle, decision(seeded_engine, "frank", action.action_hash))
        await env.sleep(PAST_FIRST_EXPIRY)
        state = await state_when(handle, escalated, "escalating", WAIT_SECONDS)
        (raised,) = state.pending_actions
        row = waiting_row(seeded_engine, handle.id)
        approved = await decide(handle, decision(seeded_engine, "frank", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert too_early == "Reviewer 'frank' does not have the refund_approver role."
    # The same action: same hash, a new expiry, and the lead among who may decide.
    assert raised.action_hash == action.action_hash
    assert raised.approver_roles == ["refund_approver", "support_lead"]
    assert raised.expires_at - action.expires_at >= timedelta(hours=4)
    assert "escalated to support_lead (escalation 1 of 1)" in raised.note
    # The inbox's read model waits with it, for the new role.
    assert row.expires_at == raised.expires_at
    assert PendingAction.model_validate_json(row.action).approver_roles == raised.approver_roles
    assert approved.status == "approved"
    assert refunded(seeded_engine, "C-1042") == [Decimal("50.00")]
    assert isinstance(outcome, RunOutcome)
    assert [(d.kind, d.reviewer_id) for d in outcome.decisions] == [
        ("escalated", None),
        ("approved", "frank"),
    ]
    assert outcome.decisions[0].reason.startswith(
        "no decision in time; escalated to support_lead until "
    )
    # The audit proves it from the store alone.
    assert audit_kinds(seeded_engine, handle.id) == ["escalated", "approved", "executed"]


async def test_an_escalation_that_expires_too_ends_as_an_expiry(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    env = isolated_env
    profiles = refund_policy(tmp_path, ESCALATES)
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("A colleague will call."))
    async with gate_run(env, model, seeded_engine, **on_profile(profiles)) as handle:
        (action,) = await pending_actions(handle)
        # Awaiting the result skips time: both expiries pass.
        outcome = await handle.result()
    await replay(handle)

    assert refunded(seeded_engine, "C-1042") == []
    assert isinstance(outcome, RunOutcome)
    assert [(d.kind, d.action_hash) for d in outcome.decisions] == [
        ("escalated", action.action_hash),
        ("expired", action.action_hash),
    ]
    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    assert result.content.startswith("No decision in time: no reviewer decided on the refund")
    assert outcome.not_performed == ["refund 50.00 EUR on order C-1042: no decision in time"]
    assert audit_kinds(seeded_engine, handle.id) == ["escalated", "expired"]


def waiting_row(engine: Engine, run_id: str) -> WaitingAction:
    with use_session(engine) as session:
        (row,) = session.scalars(select(WaitingAction).where(WaitingAction.run_id == run_id))
        return row


def audit_kinds(engine: Engine, run_id: str) -> list[str]:
    with use_session(engine) as session:
        rows = session.scalars(
            select(DecisionRow).where(DecisionRow.run_id == run_id).order_by(DecisionRow.seq)
        )
        return [row.kind for row in rows]
