"""A decision reaches its effect in one round trip, and every trust check still holds.

The run checks a decision's signature itself, in the `decide` validator, with the keys
it got with its first model turn (workflows/run_limits.py), so a forged one costs no
activity; the store's checks (`verify_decision`, a local activity in the update) refuse
what only the store knows at once; the update's answer and the refund's schedule leave
in one workflow-task completion; then the refund's one transaction re-reads the
reviewers, writes the approval's audit row and the refund
(workflows/decision_update.py). No `record_decision` in between.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

from sqlalchemy import Engine, update
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory
from temporalio.testing import WorkflowEnvironment

from activities.store import Reviewer, add_reviewer, write_transaction
from activities.store.decision_queries import AuditQuery, audit_rows
from activities.store.schema import DecisionNonce
from tests.admin import ADMIN
from tests.workflow.approvals import (
    UPDATE_SECONDS,
    accepted_updates,
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
    refused,
    signed,
    state_when,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.actions import (
    EXECUTE_REFUND_ACTIVITY,
    HOLD_PENDING_REFUND_ACTIVITY,
    READ_ACTION_STATE_ACTIVITY,
    RECORD_DECISION_ACTIVITY,
)
from workflows.contracts import MODEL_TURN_ACTIVITY, RunOutcome
from workflows.decision_check import VERIFY_DECISION_ACTIVITY

REASON = "The customer's vase arrived broken."
LOCAL_ACTIVITY_MARKER = "core_local_activity"


def refund_model(amount: str) -> FakeModel:
    call = tool_reply(("refund", {"amount": amount, "reason": REASON}))
    return FakeModel().enqueue(call, text_reply("Done."))


def scheduled(history: WorkflowHistory) -> list[str]:
    """The activities the run scheduled through the server, in order."""
    return [
        event.activity_task_scheduled_event_attributes.activity_type.name
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]


# What the completion that takes a decision carries, in order.
DECISION_TO_EFFECT = [
    "WORKFLOW_EXECUTION_UPDATE_ACCEPTED",
    "MARKER_RECORDED",
    "WORKFLOW_EXECUTION_UPDATE_COMPLETED",
    "ACTIVITY_TASK_SCHEDULED " + EXECUTE_REFUND_ACTIVITY,
]


def local_activity_names(history: WorkflowHistory) -> list[str]:
    """The activity type of each local activity's marker, in order."""
    names = []
    for event in history.events:
        attributes = event.marker_recorded_event_attributes
        if attributes.marker_name == LOCAL_ACTIVITY_MARKER:
            names.append(json.loads(attributes.details["data"].payloads[0].data)["activity_type"])
    return names


def decision_to_effect_commands(history: WorkflowHistory) -> list[str]:
    """The events from the workflow-task completion that accepted the update up to the
    refund's schedule: one completion (one round trip) when no other task lies between."""
    events = list(history.events)
    accepted = next(
        i
        for i, event in enumerate(events)
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
    )
    refund = next(
        i
        for i, event in enumerate(events)
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name
        == EXECUTE_REFUND_ACTIVITY
    )
    completed = max(
        i
        for i, event in enumerate(events[:accepted])
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
    )
    names = []
    for event in events[completed : refund + 1]:
        name = EventType.Name(event.event_type).removeprefix("EVENT_TYPE_")
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            name += " " + event.activity_task_scheduled_event_attributes.activity_type.name
        names.append(name)
    return names


def run_audit(engine: Engine, run_id: str) -> list[tuple[str, str | None, str]]:
    """The run's audit rows in chain order: (kind, reviewer, reason)."""
    rows = audit_rows(engine, AuditQuery(tenant_id="demo"), batch=200)  # newest first
    mine = sorted((row for row in rows if row.run_id == run_id), key=lambda row: row.seq)
    return [(row.kind, row.reviewer_id, row.reason) for row in mine]


async def test_an_approved_refund_reaches_its_effect_in_one_round_trip_with_its_approval(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    async with gate_run(time_skipping_env, refund_model("89.90"), seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        result = await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        assert result.status == "approved"
        outcome = await asyncio.wait_for(handle.result(), UPDATE_SECONDS)
    assert isinstance(outcome, RunOutcome) and outcome.effects_performed
    history = await handle.fetch_history()
    # Nothing between the wait and the refund goes through the server: the store's
    # check of the decision is a local activity, and no record_decision (the approval's
    # audit row is the refund's); the exposure hold is a local activity too, and brings
    # the standing rules' answer; the worker's limits come with the first model turn.
    assert scheduled(history) == [
        MODEL_TURN_ACTIVITY,
        READ_ACTION_STATE_ACTIVITY,
        EXECUTE_REFUND_ACTIVITY,
        MODEL_TURN_ACTIVITY,
    ]
    assert local_activity_names(history) == [
        HOLD_PENDING_REFUND_ACTIVITY,
        VERIFY_DECISION_ACTIVITY,
    ]
    # One workflow-task completion carries the update's acceptance, the check's marker,
    # the update's answer and the refund's schedule: one round trip to the effect.
    # (Between them: the expiry's timer cancelled and the status upserted.)
    commands = decision_to_effect_commands(history)
    assert commands[0] == "WORKFLOW_TASK_COMPLETED"
    assert [name for name in commands[1:] if name.startswith("WORKFLOW_TASK")] == []
    assert [name for name in commands if name in DECISION_TO_EFFECT] == DECISION_TO_EFFECT
    assert RECORD_DECISION_ACTIVITY not in scheduled(history)
    # The refund's transaction wrote the approval's row before its own, and spent on
    # this refund the nonce the check claimed for this run.
    kinds = [(kind, reviewer) for kind, reviewer, _ in run_audit(seeded_engine, handle.id)]
    assert kinds == [("approved", "alice"), ("executed", None)]
    with write_transaction(seeded_engine) as session:
        claims = session.query(DecisionNonce).filter(DecisionNonce.run_id == handle.id).all()
    assert [(claim.reviewer_id, claim.effect_key is not None) for claim in claims] == [
        ("alice", True)
    ]
    assert refunded(seeded_engine, "C-1042") != []
    await replay(handle)


async def test_a_forged_signature_is_refused_by_the_validator_with_no_activity(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    async with gate_run(
        time_skipping_env,
        refund_model("89.90"),
        seeded_engine,
        decision_max_age=timedelta(minutes=5),
    ) as handle:
        (action,) = await pending_actions(handle)
        before = scheduled(await handle.fetch_history())
        now = await time_skipping_env.get_current_time()
        alice = decision(seeded_engine, "alice", action.action_hash)
        # A valid signature made for another action, pasted onto this one.
        other = signed(alice.model_copy(update={"action_hash": "ab" * 32}), handle.id, at=now)
        moved = other.model_copy(update={"action_hash": action.action_hash})
        assert "no signoff front end signed" in await refused(handle, moved)
        # Signed an hour before it reached the run.
        old = signed(alice, handle.id, at=now - timedelta(hours=1))
        assert "longer ago than the 300 s" in await refused(handle, old)
        history = await handle.fetch_history()
        assert scheduled(history) == before  # no activity ran for either
        assert await accepted_updates(handle) == 0
        assert VERIFY_DECISION_ACTIVITY not in scheduled(history)
        (still,) = await pending_actions(handle)
        assert still.action_hash == action.action_hash and still.approvals == []
        add_reviewer(seeded_engine, ADMIN, "carlos", "demo", ["refund_approver"], None)
        rejection = decision(seeded_engine, "carlos", action.action_hash, "reject", "no")
        await decide(handle, signed(rejection, handle.id, at=now))
        await asyncio.wait_for(handle.result(), UPDATE_SECONDS)
    assert refunded(seeded_engine, "C-1042") == []


async def test_a_reviewer_disabled_before_the_effect_is_refused_there_on_the_record(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    # 310.00 on C-3107: above the review threshold, two approvals.
    async with gate_run(
        time_skipping_env, refund_model("310.00"), seeded_engine, ticket_id="T-3107"
    ) as handle:
        (action,) = await pending_actions(handle)
        first = await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        assert first.status == "approval_recorded"
        # alice leaves between her approval and the effect that bob's approval starts.
        with write_transaction(seeded_engine) as session:
            session.execute(update(Reviewer).where(Reviewer.id == "alice").values(active=False))
        second = await decide(handle, decision(seeded_engine, "bob", action.action_hash))
        assert second.status == "approved"
        # The effect refused: the approval is void and a new action waits in its place.
        state = await state_when(
            handle,
            lambda s: [a.supersedes for a in s.pending_actions] == [action.action_hash],
            "waiting again on a new action",
        )
        (again,) = state.pending_actions
        assert again.approvals == []
        assert "reviewer 'alice' has been disabled" in again.note
        add_reviewer(seeded_engine, ADMIN, "carlos", "demo", ["refund_approver"], None)
        rejection = decision(seeded_engine, "carlos", again.action_hash, "reject", "no")
        await decide(handle, rejection)
        outcome = await asyncio.wait_for(handle.result(), UPDATE_SECONDS)
    assert isinstance(outcome, RunOutcome) and not outcome.effects_performed
    assert refunded(seeded_engine, "C-3107") == []
    audit = run_audit(seeded_engine, handle.id)
    kinds = [(kind, reviewer) for kind, reviewer, _ in audit]
    # Both approvals are on the record (bob's written by the effect's transaction), then
    # the effect's refusal that says why, then the void the run recorded.
    assert kinds[:4] == [
        ("first_approval", "alice"),
        ("approved", "bob"),
        ("refused", None),
        ("voided", None),
    ]
    assert "reviewer 'alice' has been disabled" in audit[2][2]
    assert "executed" not in [kind for kind, _ in kinds]
    await replay(handle)
