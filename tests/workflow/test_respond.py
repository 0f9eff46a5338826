"""A reviewer can answer the agent instead of deciding ("check the tracking first"): the
request ends without happening, no category, no rejection; the model's next turn reads
the words as the reviewer's instruction; the response is signed, on the audit with its
proof, and counts as no approval (issue 44, section 2)."""

from __future__ import annotations

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment

from activities.store.audit_proofs import unproven_decisions
from activities.store.database import use_session
from activities.store.schema import DecisionRow
from signoff.config.decision_signatures import AuditKeys
from tests.workflow.approvals import (
    TEST_KEYS,
    audit_caught_up,
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
    refused,
    results_of_turn,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.agent_run import AgentRun

REFUND = ("refund", {"amount": "10.00", "reason": "The vase arrived broken."})
WORDS = "Check the carrier's tracking first; it may still arrive"


async def test_a_response_reaches_the_model_as_the_reviewers_instruction(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("I will check the tracking."))
    async with gate_run(time_skipping_env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        answer = await decide(
            handle, decision(seeded_engine, "alice", action.action_hash, "respond", WORDS)
        )
        assert answer.status == "responded" and "the agent reads your words" in answer.message
        outcome = await handle.result()
        state = await handle.query(AgentRun.state)
        await audit_caught_up(handle, seeded_engine)
    await replay(handle)
    assert outcome.status == "completed"
    assert state.pending_actions == []
    assert refunded(seeded_engine, "C-1042") == []
    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    assert "A reviewer answered instead of deciding" in result.content
    assert f"The reviewer's instruction: {WORDS}." in result.content
    assert "Rejected" not in result.content and "Category" not in result.content
    (line,) = [d for d in state.decisions if d.kind == "responded"]
    assert (line.reviewer_id, line.reason, line.category) == ("alice", WORDS, None)
    with use_session(seeded_engine) as session:
        kinds = list(
            session.scalars(
                select(DecisionRow.kind)
                .where(DecisionRow.run_id == handle.id)
                .order_by(DecisionRow.seq)
            )
        )
    assert kinds == ["responded"]
    # Provable later from the store alone: the row carries alice's signed response.
    keys = AuditKeys(TEST_KEYS.keys)
    report = unproven_decisions(seeded_engine, keys, "demo")
    assert report.unproven == [] and report.checked >= 1


async def test_a_response_without_words_is_refused_and_decides_nothing(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded."))
    async with gate_run(time_skipping_env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        why = await refused(
            handle, decision(seeded_engine, "alice", action.action_hash, "respond", "  ")
        )
        assert "a response is its words" in why
        assert [a.action_hash for a in await pending_actions(handle)] == [action.action_hash]
        await handle.cancel()
