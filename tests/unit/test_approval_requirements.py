"""N of M, chains and escalation as pure rules: what a profile may say (a bad value is
refused naming the key and what is allowed), what a reviewer is told is missing, and
what an escalation keeps."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from tests.clock import clock_now
from tests.unit.test_approval_policy import pending
from workflows.actions import DecisionRecord, PendingAction
from workflows.approval_requirements import is_complete, missing, next_step_refusal
from workflows.escalation import escalated
from workflows.tool_policy import ToolPolicy

REVIEW = {"approval": "review", "approver_roles": ["refund_approver"]}


def policy(**values: Any) -> ToolPolicy:
    return ToolPolicy.model_validate({**REVIEW, **values})


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"approvals": 1}, "review needs from 2 to 10 approvals (1 given)"),
        ({"approvals": 11}, "review needs from 2 to 10 approvals (11 given)"),
        ({"chain": ["finance"]}, "a chain names from 2 to 10 roles"),
        ({"chain": ["a", "b"], "one_from": "c"}, "give one_from or chain, not both"),
        ({"chain": ["a", "b"], "approvals": 3}, "a chain of 2 roles needs 2 approvals"),
        ({"approval": "confirm", "approvals": 3}, 'applies only to approval = "review"'),
        ({"on_expiry": "escalate"}, 'on_expiry = "escalate" needs escalate_to'),
        ({"escalate_to": "lead"}, 'applies only with on_expiry = "escalate"'),
        ({"on_expiry": "later"}, "Input should be 'reject' or 'escalate'"),
        (
            {
                "on_expiry": "escalate",
                "escalate_to": "lead",
                "escalation_ttl": "4h",
                "max_escalations": 6,
            },
            "at most 5 escalations (6 given)",
        ),
    ],
)
def test_a_bad_policy_is_refused_with_what_is_allowed(values: dict[str, Any], words: str) -> None:
    with pytest.raises(ValidationError) as caught:
        policy(**values)
    assert words in str(caught.value)


def approval(reviewer: str, *roles: str) -> DecisionRecord:
    return DecisionRecord(
        action_hash="a" * 64,
        kind="approved",
        reviewer_id=reviewer,
        at=clock_now(),
        roles=list(roles),
    )


def three_with_finance(*approvals: DecisionRecord) -> PendingAction:
    return pending(list(approvals)).model_copy(
        update={"required_approvals": 3, "one_from": "finance", "mode": "review"}
    )


def test_what_is_missing_says_how_many_and_from_whom() -> None:
    assert missing(three_with_finance()) == (
        "0 of 3 approvals; still needs 3 more, one of them from finance"
    )
    two = three_with_finance(approval("alice", "refund_approver"), approval("bob"))
    assert missing(two) == "2 of 3 approvals; still needs one from finance"
    with_finance = three_with_finance(approval("erin", "finance"), approval("bob"))
    assert missing(with_finance) == "2 of 3 approvals; still needs one more"
    done = three_with_finance(approval("erin", "finance"), approval("a"), approval("b"))
    assert (missing(done), is_complete(done)) == ("", True)


def test_the_last_place_is_kept_for_the_role() -> None:
    two = three_with_finance(approval("alice"), approval("bob"))
    assert next_step_refusal(two, "hank", ["refund_approver"]) is not None
    assert next_step_refusal(two, "erin", ["finance"]) is None
    assert next_step_refusal(three_with_finance(approval("alice")), "hank", ["x"]) is None
    assert "already approved" in (next_step_refusal(two, "ALICE", ["finance"]) or "")


def test_a_chain_takes_its_steps_in_order() -> None:
    chain = pending([]).model_copy(
        update={"required_approvals": 2, "chain": ["support_lead", "finance"]}
    )
    assert next_step_refusal(chain, "gina", ["finance"]) == (
        "This request is approved in order (support_lead, then finance); step 1 of 2 needs "
        "a reviewer with the support_lead role."
    )
    assert next_step_refusal(chain, "frank", ["support_lead"]) is None


ESCALATING = {
    "approval": "confirm",
    "approver_roles": ["refund_approver"],
    "on_expiry": "escalate",
    "escalate_to": "support_lead",
    "escalation_ttl": "4h",
    "max_escalations": 1,
}


@pytest.mark.parametrize(("keep", "kept"), [(False, 0), (True, 1)])
def test_an_escalation_keeps_its_hash_and_its_approvals_only_if_the_policy_says_so(
    keep: bool, kept: int
) -> None:
    rule = ToolPolicy.model_validate({**ESCALATING, "keep_approvals": keep})
    action = pending([approval("alice")])
    raised = escalated(action, rule, action.expires_at, action.expires_at + timedelta(days=1))
    assert raised is not None
    assert raised.action_hash == action.action_hash
    assert raised.expires_at == action.expires_at + timedelta(hours=4)
    assert raised.approver_roles == [*action.approver_roles, "support_lead"]
    assert len(raised.approvals) == kept
    # Once: the next expiry ends it.
    assert escalated(raised, rule, raised.expires_at, raised.expires_at + timedelta(days=1)) is None


def test_no_escalation_past_the_run_deadline() -> None:
    rule = ToolPolicy.model_validate(ESCALATING)
    action = pending([])
    assert escalated(action, rule, action.expires_at, action.expires_at) is None
