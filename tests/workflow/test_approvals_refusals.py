"""Decisions the `decide` validator refuses: in words a reviewer reads, and with nothing
written to the history, so that the run goes on waiting as if they never came."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from tests.workflow.approvals import (
    WAIT_SECONDS,
    accepted_updates,
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
    refused,
    state_when,
)
from tests.workflow.fakes import FakeModel, Gate, replay, text_reply, tool_reply
from workflows.contracts import RunOutcome

REFUND = ("refund", {"amount": "89.90", "reason": "The vase arrived broken."})


async def test_forged_and_inadmissible_decisions_are_refused(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    answered = Gate()
    model = FakeModel().enqueue(tool_reply(REFUND), answered, text_reply("Refunded."))
    # alice asked for this run herself: she may not approve it.
    async with gate_run(env, model, seeded_engine, actor_id="alice") as handle:
        (action,) = await pending_actions(handle)
        digest = action.action_hash
        messages = {
            "wrong hash": await refused(handle, decision(seeded_engine, "bob", "0" * 64)),
            "other tenant": await refused(handle, decision(seeded_engine, "carol", digest)),
            "no role": await refused(handle, decision(seeded_engine, "dave", digest)),
            "own request": await refused(handle, decision(seeded_engine, "alice", digest)),
        }
        untouched = await state_when(handle, lambda s: True, "readable")
        trace_before = await accepted_updates(handle)

        approved = await decide(handle, decision(seeded_engine, "bob", digest))
        # The refund is done and the model's next turn is running.
        await asyncio.wait_for(answered.reached.wait(), WAIT_SECONDS)
        again = await refused(handle, decision(seeded_engine, "bob", digest))
        answered.open()
        outcome = await handle.result()
        trace_after = await accepted_updates(handle)
    await replay(handle)

    assert messages == {
        "wrong hash": "No pending request has this hash in this run; it may have been "
        "decided already.",
        "other tenant": "This request belongs to another tenant; you cannot decide on it.",
        "no role": "Reviewer 'dave' does not have the refund_approver role.",
        "own request": "You asked for this run yourself; another reviewer must decide on it.",
    }
    assert again == "This request was already decided (approved)."
    assert untouched.status == "waiting_for_approval"
    assert untouched.pending_actions == [action] and untouched.decisions == []
    assert (trace_before, trace_after) == (0, 1)  # only bob's approval is in the history
    assert approved.status == "approved"
    assert isinstance(outcome, RunOutcome)
    assert [(d.kind, d.reviewer_id) for d in outcome.decisions] == [("approved", "bob")]
    assert refunded(seeded_engine, "C-1042") == [Decimal("89.90")]
