"""Edit, then approve: the edited action has its own hash, its own approvals and its own
four eyes; the model is told exactly what was done instead of what it proposed."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from sqlalchemy import Engine
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from activities.store import list_refunds
from signoff.config.profiles import BUILTIN_PROFILES, STRICT_PROFILES, load_profile_file
from tests.store.outbox import replies_of
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
from tests.workflow.test_python_tools import on_profile
from workflows.action_edits import edited_action
from workflows.actions import Decision, PendingAction
from workflows.contracts import RunOutcome

REASON = "The customer's vase arrived broken."


def refund_call(amount: str) -> tuple[str, dict[str, str]]:
    return ("refund", {"amount": amount, "reason": REASON})


def built_in() -> dict[str, Any]:
    """The built-in profile, whose refund policy lets a reviewer lower the amount."""
    return on_profile(load_profile_file(BUILTIN_PROFILES))


def edit(
    engine: Engine,
    handle: WorkflowHandle[Any, Any],
    reviewer: str,
    original: PendingAction,
    edits: dict[str, str],
    reason: str,
) -> Decision:
    """An approval with changes, as the decision service forms it: over the edited
    action's hash, naming the original."""
    edited = edited_action(original, edits, editor=reviewer, run_id=handle.id)
    return decision(engine, reviewer, edited.action_hash, reason=reason).model_copy(
        update={"original_hash": original.action_hash, "edits": edits}
    )


async def test_a_lowered_amount_is_refunded_and_the_model_reads_what_was_done(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(refund_call("89.90")), text_reply("50.00 refunded."))
    async with gate_run(time_skipping_env, model, seeded_engine, **built_in()) as handle:
        (original,) = await pending_actions(handle)
        answer = await decide(
            handle, edit(seeded_engine, handle, "alice", original, {"amount": "50"}, "goodwill")
        )
        outcome = await handle.result()
    await replay(handle)

    assert original.editable == ["amount"]
    assert answer.status == "edited" and answer.action_hash != original.action_hash
    (row,) = list_refunds(seeded_engine, "demo", "C-1042")
    assert (row.amount, row.action_hash, row.approver_list) == (
        Decimal("50.00"),
        answer.action_hash,
        ["alice"],
    )
    (result,) = results_of_turn(model.history[1])
    assert not result.is_error
    told = json.loads(result.content)
    assert told["review"] == (
        "approved with changes: refunded 50.00 EUR of the 89.90 EUR proposed; reason: goodwill"
    )
    assert (told["status"], told["amount"], told["refund_id"]) == ("refunded", "50.00", row.id)
    assert isinstance(outcome, RunOutcome) and outcome.status == "completed"
    # Both actions and who edited, in the trail.
    assert [(d.kind, d.reviewer_id, d.action_hash, d.amount) for d in outcome.decisions] == [
        ("edited", "alice", original.action_hash, "89.90"),
        ("approved", "alice", answer.action_hash, "50.00"),
    ]
    assert outcome.effects_performed == [f"refund 50.00 EUR on order C-1042 (refund {row.id})"]


async def test_under_four_eyes_the_second_reviewer_approves_the_edited_action(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    # C-3107 was paid 310.00; the demo tenant's four-eyes threshold is 200.00.
    model = FakeModel().enqueue(tool_reply(refund_call("310.00")), text_reply("Done."))
    run = gate_run(time_skipping_env, model, seeded_engine, ticket_id="T-3107", **built_in())
    async with run as handle:
        (original,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", original.action_hash))
        bob = edit(seeded_engine, handle, "bob", original, {"amount": "250.00"}, "partial")
        answer = await decide(handle, bob)
        waiting = await state_when(
            handle,
            lambda s: [a.action_hash for a in s.pending_actions] == [answer.action_hash],
            "waiting on the edited action",
        )
        late = await refused(handle, decision(seeded_engine, "carol", original.action_hash))
        again = await refused(handle, decision(seeded_engine, "bob", answer.action_hash))
        assert refunded(seeded_engine, "C-3107") == []  # alice's approval was of the original
        await decide(handle, decision(seeded_engine, "alice", answer.action_hash))
        outcome = await handle.result()
    await replay(handle)

    (edited,) = waiting.pending_actions
    assert (edited.mode, edited.required_approvals) == ("review", 2)
    assert [a.reviewer_id for a in edited.approvals] == ["bob"]
    assert (edited.edited_by, edited.supersedes) == ("bob", original.action_hash)
    assert edited.proposed == {"amount": "310.00", "currency": "EUR"}
    assert late.startswith("This request was edited by bob; decide on the edited version")
    assert again == "You already approved this request; it needs a second, different reviewer."
    (row,) = list_refunds(seeded_engine, "demo", "C-3107")
    assert (row.amount, row.approver_list) == (Decimal("250.00"), ["bob", "alice"])
    assert isinstance(outcome, RunOutcome)
    assert [(d.kind, d.reviewer_id, d.action_hash) for d in outcome.decisions] == [
        ("approved", "alice", original.action_hash),
        ("edited", "bob", original.action_hash),
        ("approved", "bob", answer.action_hash),
        ("approved", "alice", answer.action_hash),
    ]


async def test_an_edit_below_the_threshold_needs_one_approval_only(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(refund_call("310.00")), text_reply("Done."))
    run = gate_run(time_skipping_env, model, seeded_engine, ticket_id="T-3107", **built_in())
    async with run as handle:
        (original,) = await pending_actions(handle)
        bob = edit(seeded_engine, handle, "bob", original, {"amount": "150.00"}, "goodwill")
        await decide(handle, bob)
        outcome = await handle.result()

    assert (original.mode, original.required_approvals) == ("review", 2)
    # Four eyes is judged on the edited amount's exposure: 150.00 is under 200.00.
    (row,) = list_refunds(seeded_engine, "demo", "C-3107")
    assert (row.amount, row.approver_list) == (Decimal("150.00"), ["bob"])
    assert isinstance(outcome, RunOutcome) and outcome.status == "completed"


async def test_edits_the_policy_does_not_allow_are_refused_and_nothing_moves(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(refund_call("89.90")), text_reply("Done."))
    async with gate_run(time_skipping_env, model, seeded_engine, **built_in()) as handle:
        (original,) = await pending_actions(handle)
        fair = edit(seeded_engine, handle, "alice", original, {"amount": "50.00"}, "goodwill")
        higher = fair.model_copy(update={"edits": {"amount": "95.00"}})
        currency = fair.model_copy(update={"edits": {"currency": "USD"}})
        # A hash that is not the edit's: the signed edits and the hash must agree.
        other_hash = fair.model_copy(update={"edits": {"amount": "40.00"}})
        no_reason = fair.model_copy(update={"reason": ""})
        answers = [await refused(handle, bad) for bad in (higher, currency, other_hash, no_reason)]
        still = await state_when(handle, lambda s: True, "readable")
        await decide(handle, decision(seeded_engine, "alice", original.action_hash))
        await handle.result()

    assert answers == [
        "95.00 EUR is above the 89.90 EUR proposed: an edit may only lower the amount.",
        "'currency' cannot be edited on refund; its policy lets a reviewer edit: amount.",
        "The decision's hash is not the hash of the edited action; open the request again "
        "and edit it there.",
        "Say why you changed it: the agent is told your reason.",
    ]
    assert still.decisions == [] and [a.action_hash for a in still.pending_actions] == [
        original.action_hash
    ]
    assert refunded(seeded_engine, "C-1042") == [Decimal("89.90")]


async def test_without_editable_arguments_no_edit_is_taken(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    # A run without a profile: the built-in catalog, whose refund names nothing editable.
    model = FakeModel().enqueue(tool_reply(refund_call("89.90")), text_reply("Done."))
    async with gate_run(time_skipping_env, model, seeded_engine) as handle:
        (original,) = await pending_actions(handle)
        widened = original.model_copy(update={"editable": ["amount"]})
        sent = edit(seeded_engine, handle, "alice", widened, {"amount": "50.00"}, "goodwill")
        answer = await refused(handle, sent)
        await decide(handle, decision(seeded_engine, "alice", original.action_hash))
        await handle.result()

    assert original.editable == []
    assert (
        answer == "'amount' cannot be edited on refund; its policy lets a reviewer edit: nothing."
    )


async def test_a_rewritten_reply_is_sent_in_the_reviewers_words(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    draft = "hey, kettle ships tmrw"
    better = "Hello Ms Martin, your kettle ships again tomorrow. Kind regards, Support"
    strict = on_profile(load_profile_file(STRICT_PROFILES))
    model = FakeModel().enqueue(tool_reply(("send_reply", {"text": draft})), text_reply("Sent."))
    async with gate_run(time_skipping_env, model, seeded_engine, **strict) as handle:
        (original,) = await pending_actions(handle)
        sent = edit(seeded_engine, handle, "alice", original, {"text": better}, "tone")
        await decide(handle, sent)
        outcome = await handle.result()

    assert original.editable == ["text"]
    (reply,) = replies_of(seeded_engine, "demo", "T-1042")
    assert reply.text == better
    (result,) = results_of_turn(model.history[1])
    assert json.loads(result.content) == {
        "review": "approved with changes: send_reply was carried out with the reviewer's "
        "text in place of yours; reason: tone",
        "status": "sent",
        "reply_id": reply.id,
    }
    assert outcome.status == "completed"
