"""What a standing rule's amount covers (workflows/rule_contracts.py): the action's
exposure, as its tool's policy declares it, never an argument read by its name. A rule
without a maximum never covers an action that has money at stake; a rule with one never
covers an action without exposure, whatever its arguments are called."""

from __future__ import annotations

from datetime import timedelta

from tests.clock import clock_now
from tests.exposures import voucher_exposure
from tests.unit.test_action_hold import an_action
from workflows.actions import PendingAction
from workflows.exposure import ActionExposure
from workflows.rule_contracts import RuleTerms, coverage_problem

NOW = clock_now()


def rule(tool: str, max_amount_minor: int | None = None) -> RuleTerms:
    return RuleTerms(
        rule_id="r-1",
        tenant_id="demo",
        tool=tool,
        max_amount_minor=max_amount_minor,
        currency=None if max_amount_minor is None else "EUR",
        created_by="admin",
        created_at=NOW,
        expires_at=NOW + timedelta(days=1),
        max_uses=5,
        key_id="k1",
    )


def tool_action(
    tool: str, arguments: dict[str, str], exposure: ActionExposure | None = None
) -> PendingAction:
    return an_action().model_copy(
        update={"tool": tool, "arguments": arguments, "exposure": exposure}
    )


def covers(terms: RuleTerms, action: PendingAction) -> str | None:
    return coverage_problem(terms, action, "demo", "Kim")


def test_declared_money_is_measured_whatever_its_argument_is_called() -> None:
    voucher = tool_action("issue_voucher", {"value": "15"}, voucher_exposure())
    assert "has an amount" in (covers(rule("issue_voucher"), voucher) or "")
    assert covers(rule("issue_voucher", 1500), voucher) is None
    assert "up to 14.99 EUR" in (covers(rule("issue_voucher", 1499), voucher) or "")


def test_an_argument_named_amount_without_exposure_is_no_money() -> None:
    # An MCP tool's string named `amount` (JSON text), its policy declaring no exposure.
    mcp = tool_action("shop__issue_voucher", {"amount": '"15.00"', "currency": '"EUR"'})
    assert covers(rule("shop__issue_voucher"), mcp) is None
    assert "has none" in (covers(rule("shop__issue_voucher", 10_000), mcp) or "")


def test_the_refund_is_measured_by_the_exposure_its_hooks_declare() -> None:
    refund = an_action("310.00")
    assert covers(rule("refund", 31_000), refund) is None
    assert "has an amount" in (covers(rule("refund"), refund) or "")
