"""A rejection's category reaches the model with whether it may propose something else;
suspected fraud ends the run with its own named outcome; a rejection without a category
is refused. (An expiry is told as "no decision in time": test_approvals_unanswered.py.)"""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from tests.workflow.approvals import (
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
    refused,
    results_of_turn,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.actions import RejectCategory
from workflows.contracts import RunOutcome

REFUND = ("refund", {"amount": "89.90", "reason": "The vase arrived broken."})


@pytest.mark.parametrize(
    ("category", "label", "may", "next_step"),
    [
        ("wrong_amount", "wrong amount", "yes", "You may propose it again with a different"),
        ("not_eligible", "not eligible", "no", "Do not propose it again in any form"),
        ("needs_more_information", "needs more information", "yes", "You may ask the customer"),
        ("other", "other", "yes", "Do not retry the same call; you may propose another way."),
    ],
)
async def test_the_model_reads_the_category_the_words_and_whether_it_may_propose_again(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    category: RejectCategory,
    label: str,
    may: str,
    next_step: str,
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("No refund for now."))
    async with gate_run(time_skipping_env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        sent = decision(seeded_engine, "bob", action.action_hash, "reject", "no photo", category)
        await decide(handle, sent)
        outcome = await handle.result()
    await replay(handle)

    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    assert result.content.startswith(
        f"Rejected by the reviewer: the refund did not happen. Category: {label}. "
        f"The reviewer's words: no photo. May you propose something else: {may}. {next_step}"
    )
    assert "no decision in time" not in result.content.lower()
    assert isinstance(outcome, RunOutcome) and outcome.status == "completed"
    (record,) = outcome.decisions
    assert (record.kind, record.category, record.reason) == ("rejected", category, "no photo")


async def test_suspected_fraud_ends_the_run_without_asking_the_model_again(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Let me argue."))
    async with gate_run(time_skipping_env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        sent = decision(
            seeded_engine,
            "bob",
            action.action_hash,
            "reject",
            "same card, 5 claims",
            "suspected_fraud",
        )
        await decide(handle, sent)
        outcome = await handle.result()
    await replay(handle)

    assert len(model.history) == 1  # the model never gets a turn to argue
    assert refunded(seeded_engine, "C-1042") == []
    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, outcome.reason, outcome.final_text) == (
        "failed",
        "suspected_fraud",
        None,
    )
    assert outcome.detail == (
        "refund 89.90 EUR on order C-1042: rejected as suspected fraud: same card, 5 claims"
    )
    assert outcome.not_performed == [
        "refund 89.90 EUR on order C-1042: rejected by the reviewer (suspected fraud): "
        "same card, 5 claims"
    ]


async def test_a_rejection_without_a_category_is_refused(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("No refund."))
    async with gate_run(time_skipping_env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        bare = decision(seeded_engine, "bob", action.action_hash, "reject", "no photo")
        answer = await refused(handle, bare.model_copy(update={"category": None}))
        approve_with_one = decision(seeded_engine, "bob", action.action_hash).model_copy(
            update={"category": "other"}
        )
        mixed = await refused(handle, approve_with_one)
        await decide(handle, bare)
        await handle.result()

    assert answer == (
        "A category is required to reject: wrong_amount, not_eligible, "
        "needs_more_information, suspected_fraud or other."
    )
    assert mixed == "A category goes with a rejection, not with an approval."
