"""An action nobody decides on: it expires after 24 h (a durable timer, skipped here in
milliseconds), or the run is cancelled while it waits. Either way no refund happens,
the outcome says so; a decision after the expiry is refused."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from tests.workflow.approvals import (
    WAIT_SECONDS,
    decision,
    gate_run,
    pending_actions,
    refunded,
    refused,
    results_of_turn,
)
from tests.workflow.fakes import FakeModel, Gate, replay, text_reply, tool_reply
from workflows.contracts import RunOutcome

REFUND = ("refund", {"amount": "89.90", "reason": "The vase arrived broken."})
PAST_EXPIRY = timedelta(hours=25)


async def test_expiry_after_24_hours(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    # Its own server: the clock must move 25 h, and on the shared server a lock another
    # test left behind (see tests/workflow/conftest.py) would hold it still.
    env = isolated_env
    next_turn = Gate()
    model = FakeModel().enqueue(tool_reply(REFUND), next_turn, text_reply("A colleague will call."))
    async with gate_run(env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        # The model's next turn holds the run open (and, while it runs, the test
        # server's clock), so that a late decision reaches a living run.
        skipping = asyncio.create_task(env.sleep(PAST_EXPIRY))
        await asyncio.wait_for(next_turn.reached.wait(), WAIT_SECONDS)
        late = await refused(handle, decision(seeded_engine, "alice", action.action_hash))
        next_turn.open()
        await asyncio.wait_for(skipping, WAIT_SECONDS)
        outcome = await handle.result()
    await replay(handle)

    # The model's turn holds the test server's clock at the expiry: "moments ago".
    assert late == "Expired moments ago; it did not happen."
    assert refunded(seeded_engine, "C-1042") == []
    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    # Told apart from a rejection: no reviewer said no.
    assert result.content.startswith(
        "No decision in time: no reviewer decided on the refund before it expired at "
        f"{action.expires_at.isoformat()}."
    )
    assert "did not happen" in result.content and "Do not retry" in result.content
    assert "reject" not in result.content.lower() and "refused" not in result.content.lower()
    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, outcome.final_text) == ("completed", "A colleague will call.")
    assert outcome.effects_performed == []
    assert outcome.not_performed == ["refund 89.90 EUR on order C-1042: no decision in time"]
    (record,) = outcome.decisions
    assert (record.action_hash, record.kind, record.reviewer_id) == (
        action.action_hash,
        "expired",
        None,
    )
    assert record.at >= action.expires_at
    # The trail says what expired, though no ledger row or pending action is left.
    assert (record.order_id, record.amount, record.currency) == ("C-1042", "89.90", "EUR")


async def test_cancel_while_waiting_for_a_decision(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    # Its own server: a cancelled run may end while an activity it cancelled still runs,
    # which leaves a time-skipping lock that stalls later tests on a shared server.
    env = isolated_env
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Never asked."))
    async with gate_run(env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        await handle.cancel()
        outcome = await handle.result()
    await replay(handle)

    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, outcome.reason) == ("cancelled", "cancelled")
    assert outcome.final_text is None
    assert len(model.history) == 1  # the model was not asked again
    assert refunded(seeded_engine, "C-1042") == []
    assert outcome.effects_performed == []
    assert outcome.not_performed == [
        "refund 89.90 EUR on order C-1042: the run ended while it waited for a decision"
    ]
    (record,) = outcome.decisions
    assert (record.action_hash, record.kind) == (action.action_hash, "cancelled")
    assert (record.order_id, record.amount, record.currency) == ("C-1042", "89.90", "EUR")
