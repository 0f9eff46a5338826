"""Irreversible calls within a model turn: each gets its own pending action and decision,
and all results go back together, in the order of the calls. A call the policy denies
asks no one: the model is told why at once."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from tests.workflow.approvals import (
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
    results_of_turn,
    state_when,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply, tool_uses
from workflows.contracts import RunOutcome


def refund(amount: str, reason: str) -> tuple[str, dict[str, str]]:
    return ("refund", {"amount": amount, "reason": reason})


async def test_two_refunds_in_one_turn_are_decided_separately(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    call = tool_reply(refund("60.00", "The vase is broken."), refund("20.00", "Late delivery."))
    model = FakeModel().enqueue(call, text_reply("Refunded 20.00 for the delay."))
    first_use, second_use = tool_uses(call)
    async with gate_run(env, model, seeded_engine) as handle:
        both = await pending_actions(handle, count=2)
        by_call = {action.tool_use_id: action for action in both}
        first, second = by_call[first_use.id], by_call[second_use.id]
        # The second call is decided first; its result still comes second.
        await decide(handle, decision(seeded_engine, "alice", second.action_hash))
        one_left = await state_when(
            handle, lambda s: len(s.pending_actions) == 1, "deciding the second call"
        )
        await decide(
            handle,
            decision(seeded_engine, "bob", first.action_hash, "reject", reason="no photos"),
        )
        outcome = await handle.result()
    await replay(handle)

    assert first.action_hash != second.action_hash
    assert first.arguments["amount"] == "60.00" and second.arguments["amount"] == "20.00"
    assert one_left.status == "waiting_for_approval"
    assert [a.action_hash for a in one_left.pending_actions] == [first.action_hash]

    assert refunded(seeded_engine, "C-1042") == [Decimal("20.00")]
    assert len(model.history) == 2
    assert len(model.history[1].messages) == 3  # opening, assistant, one user message
    rejected, done = results_of_turn(model.history[1])
    assert [rejected.tool_use_id, done.tool_use_id] == [first_use.id, second_use.id]
    assert rejected.is_error and "The reviewer's words: no photos." in rejected.content
    assert not done.is_error and json.loads(done.content)["amount"] == "20.00"
    assert isinstance(outcome, RunOutcome)
    assert [(d.kind, d.action_hash) for d in outcome.decisions] == [
        ("approved", second.action_hash),
        ("rejected", first.action_hash),
    ]
    assert len(outcome.effects_performed) == 1 and len(outcome.not_performed) == 1


async def test_two_approved_refunds_of_one_order_are_judged_one_after_the_other(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    """Both were judged on "nothing refunded yet": once the first is made, the second's
    approval is void, and its reviewer is asked again with the order as it now is."""
    env = time_skipping_env
    call = tool_reply(refund("60.00", "The vase is broken."), refund("20.00", "Late delivery."))
    model = FakeModel().enqueue(call, text_reply("Both refunds are made."))
    first_use, second_use = tool_uses(call)
    async with gate_run(env, model, seeded_engine) as handle:
        by_call = {a.tool_use_id: a for a in await pending_actions(handle, count=2)}
        first, second = by_call[first_use.id], by_call[second_use.id]
        await decide(handle, decision(seeded_engine, "alice", first.action_hash))
        await state_when(
            handle,
            lambda s: refunded(seeded_engine, "C-1042") == [Decimal("60.00")],
            "making the first refund",
        )
        await decide(handle, decision(seeded_engine, "alice", second.action_hash))
        again = await state_when(
            handle,
            lambda s: [a.supersedes for a in s.pending_actions] == [second.action_hash],
            "asking again for the second refund",
        )
        (renewed,) = again.pending_actions
        assert renewed.state.refunded_minor == 6000
        await decide(handle, decision(seeded_engine, "bob", renewed.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert refunded(seeded_engine, "C-1042") == [Decimal("60.00"), Decimal("20.00")]
    results = results_of_turn(model.history[1])
    assert [r.tool_use_id for r in results] == [first_use.id, second_use.id]
    assert [json.loads(r.content)["amount"] for r in results] == ["60.00", "20.00"]
    assert isinstance(outcome, RunOutcome)
    assert [d.kind for d in outcome.decisions] == ["approved", "approved", "voided", "approved"]


@pytest.mark.parametrize(
    ("ticket_id", "amount", "why"),
    [
        (
            "T-1042",
            "100.00",
            "100.00 EUR is more than what remains refundable on order C-1042 "
            "(89.90 EUR of 89.90 paid)",
        ),
        ("T-9999", "10.00", "this ticket is linked to no order, so there is nothing to refund"),
    ],
)
async def test_policy_denies_without_asking_anyone(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    ticket_id: str,
    amount: str,
    why: str,
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(
        tool_reply(refund(amount, "Full refund.")), text_reply("I cannot refund that.")
    )
    async with gate_run(env, model, seeded_engine, ticket_id=ticket_id) as handle:
        outcome = await handle.result()
        after = await state_when(handle, lambda s: True, "readable")
    await replay(handle)

    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    assert result.content.startswith(f"Refused by policy: {why}. The refund did not happen.")
    assert "Do not retry" in result.content
    assert not any("waits for" in event.text for event in after.events)  # no one was asked
    assert after.pending_actions == []
    assert all(refunded(seeded_engine, order) == [] for order in ("C-1042", "4512"))
    assert isinstance(outcome, RunOutcome)
    assert outcome.status == "completed"
    (record,) = outcome.decisions
    assert (record.kind, record.reviewer_id, record.reason) == ("denied", None, why)
    assert outcome.not_performed[0].endswith(f"refused by policy: {why}")
