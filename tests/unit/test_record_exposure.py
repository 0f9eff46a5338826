"""What a decision record names (workflows/gate_results.py): the order, amount and
currency of the action's exposure, for every kind of tool, and nothing for an action
without one, whatever its arguments and targets are called."""

from __future__ import annotations

from tests.exposures import refund_exposure, voucher_exposure
from tests.unit.test_action_hold import an_action
from workflows.actions import PendingAction
from workflows.gate_results import amount_of, currency_of, order_of


def named(action: PendingAction) -> tuple[str | None, str | None, str | None]:
    return order_of(action), amount_of(action), currency_of(action)


def test_an_action_without_exposure_names_no_money_whatever_its_arguments() -> None:
    # An MCP tool's string named `amount`, beside a `currency` and an order target.
    voucher = an_action().model_copy(
        update={
            "tool": "shop__issue_voucher",
            "arguments": {"amount": '"15.00"', "currency": '"EUR"'},
            "exposure": None,
        }
    )
    assert voucher.targets["order_id"] == "C-3107"  # a target named as the refund's
    assert named(voucher) == (None, None, None)


def test_an_action_names_its_exposure_whatever_its_arguments() -> None:
    assert named(an_action("89.9")) == ("C-3107", "89.90", "EUR")
    assert an_action().exposure == refund_exposure("310.00", "C-3107")
    gift = an_action().model_copy(
        update={
            "tool": "issue_voucher",
            "arguments": {"value": "15"},
            "exposure": voucher_exposure(),
        }
    )
    assert named(gift) == (None, "15.00", "EUR")
