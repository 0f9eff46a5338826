"""The pure part of deciding several at once: what a selection adds up to, what makes a
batch malformed (refused whole, nothing sent), and how each action's refusal becomes its
own line while the others go on."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from approvals_ui.link_words import decision_told
from approvals_ui.translations import translations
from signoff.cli.batch_service import Filter
from signoff.cli.render import what_it_does
from signoff.service.batch_decisions import (
    DECIDE_ALONE,
    MAX_BATCH,
    BatchKey,
    BatchOutcome,
    InvalidBatch,
    checked_choice,
    checked_keys,
    decide_each,
    failed,
    outcome_of_result,
    parse_key,
    summary_of,
)
from signoff.service.decisions import DecisionNotAccepted, DecisionUnavailable, InvalidDecision
from signoff.service.passkey_step_up import PasskeyRequired
from tests.clock import clock_now
from tests.exposures import refund_exposure, voucher_exposure
from workflows.actions import ActionState, DecisionResult, PendingAction
from workflows.approval_policy import expired_words

HASH = "ab" * 32
EXPIRED = expired_words(clock_now(), clock_now() + timedelta(minutes=3))


def action(index: int, amount: str | None, currency: str, mode: str = "confirm") -> PendingAction:
    now = clock_now()
    arguments = {"currency": currency} | ({"amount": amount} if amount is not None else {})
    return PendingAction(
        action_hash=f"{index:064x}",
        tool_use_id=f"call-{index}",
        tool="refund" if amount is not None else "send_reply",
        arguments=arguments,
        targets={"tenant_id": "demo", "order_id": "X-1"},
        reason="a reason",
        policy_version="test",
        state=ActionState(
            order_id="X-1", currency=currency, paid_minor=90_000, review_threshold_minor=20_000
        ),
        state_hash="0" * 64,
        mode=mode,
        required_approvals=2 if mode == "review" else 1,
        requested_at=now,
        expires_at=now + timedelta(hours=1),
        exposure=None if amount is None else refund_exposure(amount, "X-1", currency),
    )


# An MCP tool's string argument named `amount`, with no exposure declared by its policy.
MCP_VOUCHER = {"amount": '"15.00"', "currency": '"EUR"'}


def others(index: int) -> list[PendingAction]:
    """An MCP tool whose argument is named `amount`, and the team's tool that declares
    its money in another argument."""
    mcp = action(index, None, "EUR").model_copy(
        update={"tool": "shop__issue_voucher", "arguments": MCP_VOUCHER}
    )
    team = action(index + 1, None, "EUR").model_copy(
        update={
            "tool": "issue_voucher",
            "arguments": {"value": "7"},
            "exposure": voucher_exposure("7.00"),
        }
    )
    return [mcp, team]


def test_the_summary_counts_totals_per_currency_and_modes() -> None:
    summary = summary_of(
        [
            action(1, "19.90", "EUR"),
            action(2, "80.10", "EUR", "review"),
            action(3, "5.00", "USD"),
            action(4, None, "EUR"),
        ]
    )
    assert summary.count == 4
    assert summary.totals == [("EUR", "100.00"), ("USD", "5.00")]
    assert summary.modes == [("confirm", 3), ("review", 1)]
    assert summary.tools == [("send_reply", 1)]
    assert summary_of([]).count == 0


def test_the_summary_adds_the_declared_money_of_any_tool_and_no_argument_by_name() -> None:
    summary = summary_of([action(1, "19.90", "EUR"), *others(2)])
    assert summary.totals == [("EUR", "26.90")]
    assert summary.tools == [("shop__issue_voucher", 1)]


def test_a_max_amount_compares_the_exposure_and_never_takes_an_action_without_one() -> None:
    bounded = Filter(max_amount=Decimal("20.00"))
    mcp, team = others(2)
    assert bounded.keeps(action(1, "19.90", "EUR")) and bounded.keeps(team)
    assert not bounded.keeps(action(1, "20.01", "EUR"))
    assert not bounded.keeps(mcp)  # its `amount` is no exposure: nothing to compare
    assert not bounded.keeps(action(3, None, "EUR"))
    assert Filter().keeps(mcp)


def test_each_action_reads_as_its_tool_and_its_money_or_its_arguments() -> None:
    mcp, team = others(2)
    assert what_it_does(action(1, "89.90", "EUR")) == "refund 89.90 EUR on order X-1"
    assert what_it_does(team) == "issue_voucher 7.00 EUR"
    assert what_it_does(mcp) == 'shop__issue_voucher amount="15.00"; currency="EUR"'
    reply = action(4, None, "EUR").model_copy(
        update={"arguments": {"text": "Hello, thank you for writing.\n" + "x" * 200}}
    )
    said = what_it_does(reply)
    assert said.startswith("send_reply text=Hello, thank you for writing.\\nxxx")
    assert said.endswith("…") and len(said) < len("send_reply text=") + 45
    assert "None" not in said


def test_a_key_names_a_run_and_a_full_hash() -> None:
    assert parse_key(f"run-demo-1/{HASH}") == BatchKey("run-demo-1", HASH)
    for text, words in (
        ("run-demo-1", "not a selected request"),
        (f"run demo/{HASH}", "not a run id"),
        ("run-demo-1/abc", "64-character hash"),
        (f"run-demo-1/{HASH.upper()}", "64-character hash"),
    ):
        with pytest.raises(InvalidBatch, match=words):
            parse_key(text)


def test_a_malformed_batch_is_refused_whole() -> None:
    one = BatchKey("run-demo-1", HASH)
    with pytest.raises(InvalidBatch, match="at least one"):
        checked_keys([])
    many = [BatchKey(f"run-demo-{index}", HASH) for index in range(MAX_BATCH + 1)]
    with pytest.raises(InvalidBatch, match=f"at most {MAX_BATCH}"):
        checked_keys(many)
    assert len(checked_keys(many[:MAX_BATCH])) == MAX_BATCH
    with pytest.raises(InvalidBatch, match="selected twice"):
        checked_keys([one, BatchKey("run-demo-2", HASH), one])
    with pytest.raises(InvalidBatch, match="Choose a category"):
        checked_choice("reject", "late", None)
    with pytest.raises(InvalidBatch, match="reason is required"):
        checked_choice("reject", "  ", "other")
    with pytest.raises(InvalidBatch, match="goes with a rejection"):
        checked_choice("approve", "", "other")
    assert checked_choice("reject", "late", "other") == "other"
    assert checked_choice("approve", "", None) is None


async def test_each_refusal_is_its_own_line_and_the_others_go_on() -> None:
    keys = [BatchKey(f"run-demo-{index}", HASH) for index in range(6)]

    async def decide_one(key: BatchKey) -> BatchOutcome:
        index = int(key.run_id.rsplit("-", 1)[1])
        if index == 1:
            raise DecisionNotAccepted(EXPIRED.english(), wording=EXPIRED)
        if index == 2:
            raise PasskeyRequired()
        if index == 3:
            raise DecisionUnavailable()
        if index == 4:
            raise InvalidDecision("No pending action has this hash in this run; reload it.")
        status = "approval_recorded" if index == 5 else "approved"
        return outcome_of_result(key, DecisionResult(action_hash=HASH, status=status, message="ok"))

    outcomes = await decide_each(keys, decide_one)
    assert [outcome.run_id for outcome in outcomes] == [key.run_id for key in keys]
    assert [outcome.outcome for outcome in outcomes] == [
        "decided",
        "failed",
        "decide_alone",
        "failed",
        "failed",
        "recorded",
    ]
    assert outcomes[1].message == "Expired 3 minutes ago; it did not happen."
    # The run's words, kept whole: the batch page writes them in its own language.
    assert outcomes[1].wording == EXPIRED
    told = decision_told(None, outcomes[1].wording or "", translations("fr"), "fr")
    assert told == ("Expirée il y a 3 minutes ; elle n'a pas eu lieu.", "fr")
    assert outcomes[2].message == DECIDE_ALONE
    assert [outcome.succeeded for outcome in outcomes] == [True, False, False, False, False, True]
    assert failed(keys[0], "why").message == "why"
