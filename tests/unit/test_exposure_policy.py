"""Four eyes on an order's exposure: refunded + pending + the call, against the threshold.

T-3107's order: 310.00 paid, threshold 200.00.
"""

from __future__ import annotations

import pytest

from tests.unit.test_approval_policy import pending
from workflows.actions import ActionState
from workflows.approval_policy import exposure_note, refund_mode, second_reviewer_message


def order(refunded_minor: int = 0) -> ActionState:
    return ActionState(
        order_id="C-3107",
        currency="EUR",
        paid_minor=31_000,
        refunded_minor=refunded_minor,
        order_status="shipped",
        review_threshold_minor=20_000,
    )


@pytest.mark.parametrize(
    ("amount", "refunded", "pending", "mode"),
    [
        (15_500, 0, 0, "confirm"),
        (15_500, 0, 15_500, "review"),  # two calls of one turn, or two runs
        (15_500, 15_500, 0, "review"),  # the next turn, once the first is made
        (10_000, 10_000, 0, "confirm"),  # exactly the threshold is still one reviewer
        (10_000, 0, 10_000, "confirm"),
        (10_000, 10_000, 10_000, "review"),
        (20_001, 0, 0, "review"),
    ],
)
def test_the_mode_follows_the_exposure(amount: int, refunded: int, pending: int, mode: str) -> None:
    assert refund_mode(amount, order(refunded), pending) == (mode, "")


def test_runs_recorded_before_judge_each_call_alone() -> None:
    assert refund_mode(15_500, order(15_500)) == ("confirm", "")


def test_pending_refunds_never_deny_what_the_ledger_would_allow() -> None:
    # Refundable is the ledger's rule, on what is refunded; pending ones may never happen.
    assert refund_mode(15_500, order(15_500), 15_500) == ("review", "")
    mode, why = refund_mode(15_501, order(15_500), 0)
    assert mode == "deny" and "155.01 EUR is more than what remains refundable" in why


def test_the_note_says_why_a_small_refund_needs_four_eyes() -> None:
    assert exposure_note(15_500, order(), 15_500) == (
        "Four eyes: with 0.00 refunded and 155.00 pending on order C-3107, this 155.00 "
        "brings its refunds to 310.00 EUR, above the threshold of 200.00."
    )
    assert exposure_note(15_500, order(), 0) == ""  # one reviewer suffices
    assert exposure_note(31_000, order(), 0) == ""  # above the threshold on its own


def test_the_first_of_two_approvers_reads_why_a_second_is_needed() -> None:
    small = pending().model_copy(update={"arguments": {"amount": "155.00", "currency": "EUR"}})
    large = pending().model_copy(update={"arguments": {"amount": "310.00", "currency": "EUR"}})
    assert second_reviewer_message(small) == (
        "Refunds on order C-1042 would come to more than 200.00 in total; they need a "
        "second reviewer, and your approval is recorded."
    )
    assert second_reviewer_message(large) == (
        "Amounts above 200.00 need a second reviewer; your approval is recorded."
    )
