"""An approval counts only while its reviewer does: the ledger re-reads every approver in
the refund's transaction. A reviewer disabled or stripped of `refund_approver` after the
first of two approvals, or after signing in (the decision still carries the roles of
the session), voids the approval: no refund, and a new pending action whose note says
which reviewer no longer counts and why.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.store.database import write_transaction
from activities.store.schema import Reviewer
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


def change_reviewer(engine: Engine, reviewer_id: str, **values: object) -> None:
    """What `signoff user disable` or a role change does to the store."""
    with write_transaction(engine) as session:
        reviewer = session.get(Reviewer, reviewer_id)
        assert reviewer is not None
        for name, value in values.items():
            setattr(reviewer, name, value)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"active": False}, "reviewer 'alice' has been disabled"),
        ({"roles": ""}, "reviewer 'alice' no longer holds the refund_approver role"),
    ],
)
async def test_a_first_approver_who_no_longer_counts_voids_four_eyes(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    change: dict[str, object],
    why: str,
) -> None:
    call = ("refund", {"amount": "310.00", "reason": "The water tank is cracked."})
    model = FakeModel().enqueue(tool_reply(call), text_reply("A colleague will follow up."))
    async with gate_run(time_skipping_env, model, seeded_engine, ticket_id="T-3107") as handle:
        (first,) = await pending_actions(handle)
        recorded = await decide(handle, decision(seeded_engine, "alice", first.action_hash))
        change_reviewer(seeded_engine, "alice", **change)
        await decide(handle, decision(seeded_engine, "bob", first.action_hash))
        renewed = await state_when(
            handle,
            lambda s: [a.supersedes for a in s.pending_actions] == [first.action_hash],
            "raising a new pending action",
        )
        stale = await refused(handle, decision(seeded_engine, "bob", first.action_hash))
        (second,) = renewed.pending_actions
        await decide(
            handle,
            decision(seeded_engine, "bob", second.action_hash, "reject", reason="ask again"),
        )
        outcome = await handle.result()
    await replay(handle)

    assert (first.mode, recorded.status) == ("review", "approval_recorded")
    assert refunded(seeded_engine, "C-3107") == []
    assert second.note.startswith(f"An approval no longer counts: {why}.")
    assert second.note.endswith("Nothing was refunded.")
    assert "bob" not in second.note
    assert (second.mode, second.approvals, second.state) == ("review", [], first.state)
    assert second.action_hash != first.action_hash
    assert stale == "This request changed since you opened it; review the new version."
    assert isinstance(outcome, RunOutcome)
    assert outcome.effects_performed == []
    assert [(d.kind, d.reviewer_id) for d in outcome.decisions] == [
        ("approved", "alice"),
        ("approved", "bob"),
        ("voided", None),
        ("rejected", "bob"),
    ]
    assert outcome.decisions[2].reason == second.note


async def test_a_reviewer_stripped_of_the_role_after_signing_in_approves_nothing(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    call = ("refund", {"amount": "50.00", "reason": "Half the set arrived broken."})
    model = FakeModel().enqueue(tool_reply(call), text_reply("Refunded 50.00."))
    async with gate_run(time_skipping_env, model, seeded_engine) as handle:
        (first,) = await pending_actions(handle)
        # Her session was opened while she held the role; the decision still claims it.
        signed_in = decision(seeded_engine, "alice", first.action_hash)
        change_reviewer(seeded_engine, "alice", roles="")
        # The store holds her roles now: her approval is refused before it counts.
        assert "does not have the refund_approver role" in await refused(handle, signed_in)
        (second,) = await pending_actions(handle)
        assert (second.action_hash, second.approvals) == (first.action_hash, [])
        await decide(handle, decision(seeded_engine, "bob", second.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert first.mode == "confirm"
    assert refunded(seeded_engine, "C-1042") == [Decimal("50.00")]
    (result,) = results_of_turn(model.history[1])
    assert json.loads(result.content)["approved_by"] == ["bob"]
    assert isinstance(outcome, RunOutcome)
    assert [(d.kind, d.reviewer_id) for d in outcome.decisions] == [
        ("refused", "alice"),
        ("approved", "bob"),
    ]
