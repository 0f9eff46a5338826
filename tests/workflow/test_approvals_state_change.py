"""A stale approval never authorizes a changed state.

Another refund lands on the order between the request and the approval: the ledger's
last check finds another state hash, the approval is void, and the run raises a new
pending action (new hash, `supersedes` the old one, a note saying why) or, when the
amount no longer fits, refuses by policy. The old hash is refused from then on.
"""

from __future__ import annotations

import json
from decimal import Decimal

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.store import execute_refund
from tests.store.commands import refund_command
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
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.contracts import RunOutcome


def another_refund(engine: Engine, amount_minor: int) -> None:
    """A refund on C-1042 made elsewhere (another run, a colleague), straight in the ledger."""
    command = refund_command(
        engine,
        key="made-elsewhere",
        amount_minor=amount_minor,
        ticket_id="T-1042",
        order_id="C-1042",
    )
    assert execute_refund(engine, command).status == "refunded"


async def test_changed_state_voids_the_approval_and_asks_again(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    call = ("refund", {"amount": "50.00", "reason": "Half the set arrived broken."})
    model = FakeModel().enqueue(tool_reply(call), text_reply("Refunded 50.00."))
    async with gate_run(env, model, seeded_engine) as handle:
        (first,) = await pending_actions(handle)
        another_refund(seeded_engine, 1000)
        await decide(handle, decision(seeded_engine, "alice", first.action_hash))
        voided = await state_when(
            handle,
            lambda s: [a.supersedes for a in s.pending_actions] == [first.action_hash],
            "raising a new pending action",
        )
        stale = await refused(handle, decision(seeded_engine, "bob", first.action_hash))
        (second,) = voided.pending_actions
        await decide(handle, decision(seeded_engine, "bob", second.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert voided.status == "waiting_for_approval"
    assert second.action_hash != first.action_hash
    assert second.state_hash != first.state_hash
    assert (second.tool_use_id, second.arguments) == (first.tool_use_id, first.arguments)
    assert (second.state.refunded_minor, second.approvals) == (1000, [])
    assert second.note.startswith("Order C-1042 changed since the refund was approved")
    assert "the approval is void" in second.note
    assert "Now 10.00 of 89.90 EUR is refunded" in second.note
    assert stale == "This request changed since you opened it; review the new version."

    assert refunded(seeded_engine, "C-1042") == [Decimal("10.00"), Decimal("50.00")]
    (result,) = results_of_turn(model.history[1])
    assert not result.is_error
    assert json.loads(result.content)["approved_by"] == ["bob"]
    assert isinstance(outcome, RunOutcome)
    assert len(outcome.effects_performed) == 1
    assert [(d.kind, d.reviewer_id, d.action_hash) for d in outcome.decisions] == [
        ("approved", "alice", first.action_hash),
        ("voided", None, first.action_hash),
        ("approved", "bob", second.action_hash),
    ]
    assert outcome.decisions[1].reason == second.note
    # Each line says what it was about; the voided one names the amount first asked.
    assert [(d.order_id, d.amount, d.currency) for d in outcome.decisions] == [
        ("C-1042", first.arguments["amount"], "EUR"),
        ("C-1042", first.arguments["amount"], "EUR"),
        ("C-1042", second.arguments["amount"], "EUR"),
    ]


async def test_changed_state_that_leaves_too_little_is_refused_by_policy(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    call = ("refund", {"amount": "89.90", "reason": "The vase arrived broken."})
    model = FakeModel().enqueue(tool_reply(call), text_reply("A colleague will follow up."))
    async with gate_run(env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        another_refund(seeded_engine, 1000)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert refunded(seeded_engine, "C-1042") == [Decimal("10.00")]  # never 99.90 of 89.90
    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    assert result.content.startswith(
        "Refused by policy: 89.90 EUR is more than what remains refundable on order C-1042 "
        "(79.90 EUR of 89.90 paid)."
    )
    assert isinstance(outcome, RunOutcome)
    assert outcome.effects_performed == []
    assert [d.kind for d in outcome.decisions] == ["approved", "voided", "denied"]
    assert len(outcome.not_performed) == 1
    assert "refused by policy" in outcome.not_performed[0]
