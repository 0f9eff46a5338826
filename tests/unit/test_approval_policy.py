"""The pure approval policy: which decisions are admissible, and the words of a refusal."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from tests.clock import clock_now
from workflows.actions import ActionState, Decision, DecisionRecord, PendingAction
from workflows.approval_policy import DecisionRefused, check_decision, expired_message, person_key
from workflows.gate_results import as_sentence
from workflows.refund_hooks import RefundHooks

REQUESTED = clock_now()
EXPIRES = REQUESTED + timedelta(hours=24)
HASH = "ab" * 32


def pending(approvals: list[DecisionRecord] | None = None) -> PendingAction:
    state = ActionState(
        order_id="C-1042", currency="EUR", paid_minor=8990, review_threshold_minor=20000
    )
    return PendingAction(
        action_hash=HASH,
        tool_use_id="toolu_1",
        tool="refund",
        arguments={"amount": "89.90", "currency": "EUR"},
        targets={"tenant_id": "demo", "order_id": "C-1042"},
        reason="The vase arrived broken.",
        policy_version="test",
        state=state,
        state_hash="cd" * 32,
        mode="confirm",
        required_approvals=1,
        approvals=approvals or [],
        requested_at=REQUESTED,
        expires_at=EXPIRES,
    )


def decision(reviewer: str = "alice", verdict: str = "approve", reason: str = "") -> Decision:
    return Decision.model_validate(
        {
            "action_hash": HASH,
            "verdict": verdict,
            "reviewer_id": reviewer,
            "reviewer_roles": ["refund_approver"],
            "tenant_id": "demo",
            "reason": reason,
        }
    )


def refusal(action: PendingAction, sent: Decision, now: datetime) -> str:
    with pytest.raises(DecisionRefused) as refused:
        check_decision(action, sent, run_tenant="demo", run_actor="ops", now=now)
    return str(refused.value)


@pytest.mark.parametrize(
    ("late", "words"),
    [
        (timedelta(0), "Expired moments ago"),
        (timedelta(seconds=59), "Expired moments ago"),
        (timedelta(seconds=61), "Expired 1 minute ago"),
        (timedelta(minutes=3, seconds=10), "Expired 3 minutes ago"),
        (timedelta(minutes=119), "Expired 119 minutes ago"),
        (timedelta(hours=5, minutes=40), "Expired 5 hours ago"),
    ],
)
def test_expired_message_says_how_long_ago(late: timedelta, words: str) -> None:
    assert expired_message(EXPIRES, EXPIRES + late) == f"{words}; the refund did not happen."


def test_a_decision_at_or_after_the_expiry_is_refused() -> None:
    check_decision(
        pending(),
        decision(),
        run_tenant="demo",
        run_actor="ops",
        now=EXPIRES - timedelta(seconds=1),
    )
    assert refusal(pending(), decision(), EXPIRES) == (
        "Expired moments ago; the refund did not happen."
    )
    assert refusal(pending(), decision(), EXPIRES + timedelta(minutes=3)) == (
        "Expired 3 minutes ago; the refund did not happen."
    )


def test_refusals_in_order_of_who_may_decide_then_what() -> None:
    now = REQUESTED + timedelta(hours=1)
    other_tenant = decision().model_copy(update={"tenant_id": "globex"})
    assert "another tenant" in refusal(pending(), other_tenant, now)
    no_role = decision().model_copy(update={"reviewer_roles": []})
    assert "does not have the refund_approver role" in refusal(pending(), no_role, now)
    assert "another reviewer must decide" in refusal(pending(), decision("ops"), now)
    assert refusal(pending(), decision(verdict="reject", reason="  "), now) == (
        "A reason is required to reject."
    )
    first = DecisionRecord(action_hash=HASH, kind="approved", reviewer_id="alice", at=now)
    assert "needs a second, different reviewer" in refusal(pending([first]), decision(), now)
    check_decision(pending([first]), decision("bob"), run_tenant="demo", run_actor="ops", now=now)


def test_describe_an_action_on_a_ticket_without_an_order() -> None:
    action = pending().model_copy(
        update={
            "arguments": {"amount": "10.00", "currency": ""},
            "targets": {"tenant_id": "demo", "order_id": ""},
        }
    )
    describe = RefundHooks(request=None).describe  # type: ignore[arg-type]  # reads the action only
    assert describe(action) == "refund 10.00 on order (none)"
    assert describe(pending()) == "refund 89.90 EUR on order C-1042"


@pytest.mark.parametrize(
    ("reason", "sentence"),
    [
        ("no photo yet", "no photo yet."),
        ("Photo of the damage missing.", "Photo of the damage missing."),
        ("  Is this the right order?  ", "Is this the right order?"),
    ],
)
def test_a_reviewer_reason_reaches_the_model_as_one_sentence(reason: str, sentence: str) -> None:
    assert as_sentence(reason) == sentence


@pytest.mark.parametrize("spelling", ["Alice", "ALICE", "aLiCe"])
def test_one_person_under_any_spelling_gives_one_approval(spelling: str) -> None:
    now = REQUESTED + timedelta(hours=1)
    first = DecisionRecord(action_hash=HASH, kind="approved", reviewer_id="alice", at=now)
    assert "needs a second, different reviewer" in refusal(
        pending([first]), decision(spelling), now
    )
    # The run's actor ("ops") spelled otherwise is still the actor.
    assert "another reviewer must decide" in refusal(pending(), decision("OPS"), now)


def test_person_keys_fold_case_and_unicode_width() -> None:
    assert person_key("ａｌｉｃｅ") == person_key("ALICE") == "alice"
