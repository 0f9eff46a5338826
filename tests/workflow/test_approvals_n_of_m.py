"""N of M and chains on the time-skipping server: a refund whose policy asks three
different reviewers, one of them from finance; and one whose policy asks first a
support lead, then finance. Each reviewer is told what is still missing; the same
reviewer twice, a third approval without the role, and a chain's step out of order
are refused before they reach the history; the refund happens once, when complete.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from tests.workflow.approvals import (
    accepted_updates,
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
from tests.workflow.team_policies import CHAIN, THREE_WITH_FINANCE, add_team, refund_policy
from tests.workflow.test_python_tools import on_profile
from workflows.contracts import RunOutcome

REFUND = ("refund", {"amount": "50.00", "reason": "Half the set arrived broken."})


async def test_three_approvers_one_of_them_from_finance(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    add_team(seeded_engine)
    profiles = refund_policy(tmp_path, THREE_WITH_FINANCE)
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded 50.00."))
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(profiles)) as handle:
        (action,) = await pending_actions(handle)
        first = await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        twice = await refused(handle, decision(seeded_engine, "alice", action.action_hash))
        second = await decide(handle, decision(seeded_engine, "bob", action.action_hash))
        no_finance = await refused(handle, decision(seeded_engine, "hank", action.action_hash))
        waiting = await state_when(
            handle, lambda s: len(s.pending_actions[0].approvals) == 2, "two approvals"
        )
        updates_before_the_third = await accepted_updates(handle)
        third = await decide(handle, decision(seeded_engine, "erin", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert (action.mode, action.required_approvals, action.one_from) == ("review", 3, "finance")
    assert first.status == "approval_recorded"
    assert first.message == (
        "Your approval is recorded: 1 of 3 approvals; still needs 2 more, one of them from finance."
    )
    assert twice == "You already approved this request; it needs another, different reviewer."
    assert second.message == (
        "Your approval is recorded: 2 of 3 approvals; still needs one from finance."
    )
    assert no_finance == (
        "The last approval this request needs must come from a reviewer with the finance "
        "role (2 of 3 approvals; still needs one from finance)."
    )
    # The refused attempts never reached the history: only the three approvals did.
    assert updates_before_the_third == 2
    assert [a.reviewer_id for a in waiting.pending_actions[0].approvals] == ["alice", "bob"]
    assert third.status == "approved"
    assert refunded(seeded_engine, "C-1042") == [Decimal("50.00")]
    (result,) = results_of_turn(model.history[1])
    assert json.loads(result.content)["approved_by"] == ["alice", "bob", "erin"]
    assert isinstance(outcome, RunOutcome)
    assert [(d.kind, d.reviewer_id) for d in outcome.decisions] == [
        ("approved", "alice"),
        ("approved", "bob"),
        ("approved", "erin"),
    ]
    assert outcome.decisions[2].roles == ["refund_approver", "finance"]


async def test_a_chain_is_approved_in_order_and_refuses_a_step_out_of_order(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    add_team(seeded_engine)
    profiles = refund_policy(tmp_path, CHAIN)
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded 50.00."))
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(profiles)) as handle:
        (action,) = await pending_actions(handle)
        finance_first = await refused(handle, decision(seeded_engine, "gina", action.action_hash))
        approver_first = await refused(handle, decision(seeded_engine, "alice", action.action_hash))
        lead = await decide(handle, decision(seeded_engine, "frank", action.action_hash))
        lead_again = await refused(handle, decision(seeded_engine, "frank", action.action_hash))
        finance = await decide(handle, decision(seeded_engine, "gina", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert (action.required_approvals, action.chain) == (2, ["support_lead", "finance"])
    out_of_order = (
        "This request is approved in order (support_lead, then finance); step 1 of 2 needs "
        "a reviewer with the support_lead role."
    )
    assert finance_first == approver_first == out_of_order
    assert lead.message == (
        "Your approval is recorded: 1 of 2 approvals; still needs one from finance "
        "(in order: support_lead, then finance)."
    )
    assert lead_again.startswith("You already approved this request")
    assert finance.status == "approved"
    assert refunded(seeded_engine, "C-1042") == [Decimal("50.00")]
    assert isinstance(outcome, RunOutcome)
    assert [(d.kind, d.reviewer_id, d.roles) for d in outcome.decisions] == [
        ("approved", "frank", ["support_lead"]),
        ("approved", "gina", ["finance"]),
    ]
