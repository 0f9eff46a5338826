"""Approve and reject: the refund happens once after an approval bound to its hash, or the
model is told that it did not happen and why; every decision is in the trail."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.store import list_refunds
from signoff.config.profiles import BUILTIN_PROFILES, load_profile_file
from tests.workflow.approvals import (
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
    refused,
    results_of_turn,
    state_when,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply, tool_uses
from workflows.approval_policy import APPROVAL_POLICY_VERSION
from workflows.contracts import RunOutcome

REASON = "The customer's vase arrived broken."


def refund_call(amount: str = "89.90") -> tuple[str, dict[str, str]]:
    return ("refund", {"amount": amount, "reason": REASON})


async def test_approve_refunds_once_and_the_model_gets_the_refund_id(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    call = tool_reply(refund_call())
    model = FakeModel().enqueue(call, text_reply("Your refund is on its way."))
    async with gate_run(env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        assert refunded(seeded_engine, "C-1042") == []  # nothing moves before a decision
        answer = await decide(
            handle, decision(seeded_engine, "alice", action.action_hash, reason="photos match")
        )
        outcome = await handle.result()
    await replay(handle)

    assert (action.tool, action.tool_use_id) == ("refund", tool_uses(call)[0].id)
    assert action.arguments == {"amount": "89.90", "currency": "EUR"}
    assert action.targets == {"tenant_id": "demo", "order_id": "C-1042"}
    assert (action.reason, action.policy_version) == (REASON, APPROVAL_POLICY_VERSION)
    assert (action.mode, action.required_approvals, action.approvals) == ("confirm", 1, [])
    assert (action.state.paid_minor, action.state.refunded_minor) == (8990, 0)
    assert action.expires_at - action.requested_at == timedelta(hours=24)
    assert (answer.action_hash, answer.status) == (action.action_hash, "approved")

    (row,) = list_refunds(seeded_engine, "demo", "C-1042")
    assert (row.amount, row.action_hash, row.approver_list) == (
        Decimal("89.90"),
        action.action_hash,
        ["alice"],
    )
    (result,) = results_of_turn(model.history[1])
    assert not result.is_error
    assert json.loads(result.content) == {
        "status": "refunded",
        "refund_id": row.id,
        "order_id": "C-1042",
        "amount": "89.90",
        "currency": "EUR",
        "approved_by": ["alice"],
    }
    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, outcome.final_text) == ("completed", "Your refund is on its way.")
    assert outcome.effects_performed == [f"refund 89.90 EUR on order C-1042 (refund {row.id})"]
    assert outcome.not_performed == []
    (record,) = outcome.decisions
    assert (record.action_hash, record.kind, record.reviewer_id, record.reason) == (
        action.action_hash,
        "approved",
        "alice",
        "photos match",
    )
    assert action.requested_at <= record.at < action.expires_at


async def test_reject_needs_a_reason_and_tells_the_model_not_to_retry(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(tool_reply(refund_call()), text_reply("No refund, sorry."))
    async with gate_run(env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        without_reason = await refused(
            handle, decision(seeded_engine, "bob", action.action_hash, "reject", reason="  ")
        )
        still = await state_when(handle, lambda s: True, "readable")
        answer = await decide(
            handle,
            decision(seeded_engine, "bob", action.action_hash, "reject", reason="no photo yet"),
        )
        outcome = await handle.result()
    await replay(handle)

    assert without_reason == "A reason is required to reject."
    assert still.status == "waiting_for_approval" and still.decisions == []
    assert answer.status == "rejected"
    assert refunded(seeded_engine, "C-1042") == []
    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    assert result.content.startswith("Rejected by the reviewer: the refund did not happen. ")
    assert "Category: other. The reviewer's words: no photo yet. " in result.content
    assert "May you propose something else: yes." in result.content
    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, outcome.final_text) == ("completed", "No refund, sorry.")
    assert outcome.effects_performed == []
    assert outcome.not_performed == [
        "refund 89.90 EUR on order C-1042: rejected by the reviewer (other): no photo yet"
    ]
    (record,) = outcome.decisions
    assert (record.action_hash, record.kind, record.reviewer_id, record.reason) == (
        action.action_hash,
        "rejected",
        "bob",
        "no photo yet",
    )
    assert (record.order_id, record.amount, record.currency) == ("C-1042", "89.90", "EUR")
    assert action.requested_at <= record.at < action.expires_at


async def test_a_profiles_four_eyes_above_lowers_the_tenants_threshold(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    # The built-in profile with `four_eyes_above = "50.00"`: 89.90 is under the demo
    # tenant's 200.00, above the profile's 50.00, so it needs two reviewers.
    text = BUILTIN_PROFILES.read_text(encoding="utf-8")
    assert 'four_eyes_above = "200.00"' in text
    path = tmp_path / "lower.toml"
    path.write_text(text.replace('four_eyes_above = "200.00"', 'four_eyes_above = "50.00"'))
    model = FakeModel().enqueue(tool_reply(refund_call()), text_reply("Refunded."))
    async with gate_run(
        time_skipping_env, model, seeded_engine, profiles=load_profile_file(path)
    ) as handle:
        (action,) = await pending_actions(handle)
        first = await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        assert refunded(seeded_engine, "C-1042") == []  # one approval is not enough
        second = await decide(handle, decision(seeded_engine, "bob", action.action_hash))
        await handle.result()

    assert (action.mode, action.required_approvals) == ("review", 2)
    assert action.state.review_threshold_minor == 5000
    assert first.message == "Amounts above 50.00 need a second reviewer; your approval is recorded."
    assert second.status == "approved"
    (row,) = list_refunds(seeded_engine, "demo", "C-1042")
    assert (row.amount, row.approver_list) == (Decimal("89.90"), ["alice", "bob"])


async def test_four_eyes_above_the_threshold(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(tool_reply(refund_call("310.00")), text_reply("Refunded."))
    # C-3107 was paid 310.00, above the demo tenant's review threshold of 200.00.
    async with gate_run(env, model, seeded_engine, ticket_id="T-3107") as handle:
        (action,) = await pending_actions(handle)
        first = await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        halfway = await state_when(handle, lambda s: True, "readable")
        twice = await refused(handle, decision(seeded_engine, "alice", action.action_hash))
        assert refunded(seeded_engine, "C-3107") == []  # one approval is not enough
        second = await decide(handle, decision(seeded_engine, "bob", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert (action.mode, action.required_approvals) == ("review", 2)
    assert action.targets["order_id"] == "C-3107"
    assert (first.status, second.status) == ("approval_recorded", "approved")
    assert first.message == (
        "Amounts above 200.00 need a second reviewer; your approval is recorded."
    )
    assert halfway.status == "waiting_for_approval"
    (still_pending,) = halfway.pending_actions
    assert still_pending.action_hash == action.action_hash
    assert [a.reviewer_id for a in still_pending.approvals] == ["alice"]
    assert twice == "You already approved this request; it needs a second, different reviewer."

    (row,) = list_refunds(seeded_engine, "demo", "C-3107")
    assert (row.amount, row.approver_list) == (Decimal("310.00"), ["alice", "bob"])
    (result,) = results_of_turn(model.history[1])
    assert json.loads(result.content)["approved_by"] == ["alice", "bob"]
    assert isinstance(outcome, RunOutcome)
    assert [(d.kind, d.reviewer_id, d.action_hash) for d in outcome.decisions] == [
        ("approved", "alice", action.action_hash),
        ("approved", "bob", action.action_hash),
    ]
    assert outcome.effects_performed == [f"refund 310.00 EUR on order C-3107 (refund {row.id})"]
