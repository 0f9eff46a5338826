"""The edited action (workflows/action_edits.py): lowered amounts only, never above what
remains refundable, only the arguments the policy lists; its own hash names the original,
and a proof signs the edit."""

from __future__ import annotations

import pytest

from signoff.service.decisions import Choice, Decider, InvalidDecision, signed_decision
from tests.unit.test_action_hold import an_action
from tests.workflow.approvals import TEST_KEYS, TEST_SIGNER
from workflows.action_edits import edit_summary, edited_action
from workflows.actions import ActionState, PendingAction
from workflows.approval_policy import DecisionRefused, recomputed_hash, state_hash
from workflows.exposure import ActionExposure
from workflows.mcp_tools import restored_arguments, shown_arguments

RUN = "run-demo-1"
ALICE = Decider("alice", "demo", ("refund_approver",))


def editable(amount: str = "310.00", refunded_minor: int = 0) -> PendingAction:
    state = ActionState(
        order_id="C-3107",
        currency="EUR",
        paid_minor=31000,
        refunded_minor=refunded_minor,
        review_threshold_minor=20000,
    )
    action = an_action(amount).model_copy(
        update={"editable": ["amount"], "state": state, "state_hash": state_hash(state)}
    )
    return action.model_copy(update={"action_hash": recomputed_hash(action, RUN)})


def test_the_edited_action_hashes_its_edit_and_names_the_original() -> None:
    original = editable()
    edited = edited_action(original, {"amount": "150"}, editor="alice", run_id=RUN)

    assert edited.arguments == {"amount": "150.00", "currency": "EUR"}
    assert (edited.supersedes, edited.edited_by, edited.proposed) == (
        original.action_hash,
        "alice",
        original.arguments,
    )
    assert edited.action_hash == recomputed_hash(edited, RUN) != original.action_hash
    assert (edited.editable, edited.approvals) == ([], [])
    assert edit_summary(edited) == "refunded 150.00 EUR of the 310.00 EUR proposed"


@pytest.mark.parametrize(
    ("edits", "why"),
    [
        ({"amount": "320.00"}, "320.00 EUR is above the 310.00 EUR proposed: an edit may only "),
        ({"amount": "0"}, "The amount must be greater than zero; to refund nothing, reject."),
        ({"amount": "fifty"}, "'fifty' is not an amount: write it like 50.00."),
        ({"amount": "10.005"}, "'10.005' is not an amount with at most two decimals."),
        ({"amount": "310.00"}, "The edit changes nothing"),
        ({"currency": "USD"}, "'currency' cannot be edited on refund; its policy lets a "),
        ({"order_id": "C-1042"}, "'order_id' cannot be edited on refund"),
        ({}, "No argument was changed"),
    ],
)
def test_an_edit_the_policy_does_not_allow_is_refused(edits: dict[str, str], why: str) -> None:
    with pytest.raises(DecisionRefused) as refused:
        edited_action(editable(), edits, editor="alice", run_id=RUN)
    assert str(refused.value).startswith(why), refused.value


def test_an_amount_above_what_remains_refundable_is_refused() -> None:
    # Judged on 250.00 of 310.00 refunded already: 60.00 remain.
    original = editable("310.00", refunded_minor=25000)
    with pytest.raises(DecisionRefused) as refused:
        edited_action(original, {"amount": "100.00"}, editor="alice", run_id=RUN)
    assert str(refused.value) == (
        "100.00 EUR is more than what remains refundable on order C-3107 (60.00 EUR)."
    )


def test_an_edited_action_is_not_edited_again() -> None:
    once = edited_action(editable(), {"amount": "150"}, editor="alice", run_id=RUN)
    with pytest.raises(DecisionRefused) as refused:
        edited_action(
            once.model_copy(update={"editable": ["amount"]}),
            {"amount": "100"},
            editor="bob",
            run_id=RUN,
        )
    assert str(refused.value).startswith("This request was already edited by alice")


def test_the_service_signs_the_edit_over_the_edited_hash() -> None:
    original = editable()
    choice = Choice(edits={"amount": "150.00"}, action=original)

    signed = signed_decision(
        TEST_SIGNER, RUN, ALICE, original.action_hash, "approve", "goodwill", choice=choice
    )

    edited = edited_action(original, {"amount": "150.00"}, editor="alice", run_id=RUN)
    assert (signed.action_hash, signed.original_hash) == (edited.action_hash, original.action_hash)
    assert signed.signature is not None and signed.key_id is not None
    document = signed.signed_document(RUN)
    assert document["original_hash"] == original.action_hash
    assert document["edits"] == {"amount": "150.00"}
    assert TEST_KEYS.matches(document, signed.key_id, signed.signature)
    # The edits are signed: changed after signing, the signature fails.
    other = signed.model_copy(update={"edits": {"amount": "100.00"}})
    assert not TEST_KEYS.matches(other.signed_document(RUN), signed.key_id, signed.signature)


@pytest.mark.parametrize(
    ("verdict", "reason", "choice", "why"),
    [
        ("reject", "no", Choice(), "Choose a category to reject: wrong_amount, "),
        ("reject", "no", Choice(category="rude"), "Unknown category 'rude'; choose one of: "),
        ("approve", "", Choice(category="other"), "A category goes with a rejection"),
        ("approve", "", Choice(edits={"amount": "1.00"}), "Say why you changed it"),
        ("reject", "no", Choice(category="other", edits={"amount": "1.00"}), "Only an approval"),
        ("approve", "why", Choice(edits={"amount": "400.00"}), "400.00 EUR is above the 310.00"),
        ("approve", "why", Choice(edits={}), "No argument was changed"),
    ],
)
def test_the_service_refuses_to_sign_an_invalid_choice(
    verdict: str, reason: str, choice: Choice, why: str
) -> None:
    original = editable()
    with_action = Choice(choice.category, choice.edits, original)
    with pytest.raises(InvalidDecision) as invalid:
        signed_decision(
            TEST_SIGNER,
            RUN,
            ALICE,
            original.action_hash,
            verdict,
            reason,
            choice=with_action,  # type: ignore[arg-type]
        )
    assert str(invalid.value).startswith(why), invalid.value


def test_an_mcp_tools_edited_text_is_written_as_json_the_effect_reads_back() -> None:
    """An MCP tool's arguments are each JSON: an edited text is written as a JSON string,
    and a lowered amount held in a JSON string stays one, so the effect restores them."""
    shown = shown_arguments({"note": "Sorry for the wait", "amount": "15.00"})
    exposure = ActionExposure(amount="15.00", currency="EUR", amount_argument="amount")
    original = an_action().model_copy(
        update={
            "tool": "shop__issue_voucher",
            "arguments": shown,
            "exposure": exposure,
            "editable": ["note", "amount"],
        }
    )
    original = original.model_copy(update={"action_hash": recomputed_hash(original, RUN)})
    edited = edited_action(
        original, {"note": "Désolé ✓", "amount": "10"}, editor="alice", run_id=RUN
    )
    assert restored_arguments(edited.arguments) == {"note": "Désolé ✓", "amount": "10.00"}
    assert edited.exposure is not None and edited.exposure.amount == "10.00"
