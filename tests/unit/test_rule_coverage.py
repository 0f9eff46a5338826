"""What a standing rule's amount and category cover (workflows/rule_contracts.py): the
action's exposure and category argument, as its tool's policy declares them, never an
argument read by its name. A rule without a maximum never covers an action that has
money at stake; a rule with one never covers an action without exposure; a rule with a
category never covers an action whose policy names no category argument, whatever its
arguments are called."""

from __future__ import annotations

from datetime import timedelta

from tests.clock import clock_now
from tests.exposures import voucher_exposure
from tests.unit.test_action_hold import an_action
from workflows.actions import PendingAction
from workflows.exposure import ActionExposure
from workflows.rule_contracts import RuleTerms, coverage_problem

NOW = clock_now()


def rule(tool: str, max_amount_minor: int | None = None, category: str | None = None) -> RuleTerms:
    return RuleTerms(
        rule_id="r-1",
        tenant_id="demo",
        tool=tool,
        max_amount_minor=max_amount_minor,
        currency=None if max_amount_minor is None else "EUR",
        category=category,
        created_by="admin",
        created_at=NOW,
        expires_at=NOW + timedelta(days=1),
        max_uses=5,
        key_id="k1",
    )


def tool_action(
    tool: str,
    arguments: dict[str, str],
    exposure: ActionExposure | None = None,
    category_argument: str | None = None,
) -> PendingAction:
    return an_action().model_copy(
        update={
            "tool": tool,
            "arguments": arguments,
            "exposure": exposure,
            "category_argument": category_argument,
        }
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


def test_an_argument_named_category_is_no_category_unless_declared() -> None:
    # A Python tool's text and an MCP tool's JSON string, both called `category`.
    for tool, value in (("gift_card", "damaged"), ("shop__issue_voucher", '"damaged"')):
        undeclared = tool_action(tool, {"category": value})
        problem = covers(rule(tool, category="damaged"), undeclared) or ""
        assert f"the policy of {tool} names no category argument" in problem
        assert covers(rule(tool), undeclared) is None  # a rule without a category


def test_the_declared_category_is_read_whatever_its_argument_is_called() -> None:
    python = tool_action("gift_card", {"kind": "damaged", "category": "late"}, None, "kind")
    mcp = tool_action("shop__issue_voucher", {"motif": '"dégât"'}, None, "motif")
    assert covers(rule("gift_card", category="damaged"), python) is None
    assert "covers category late only" in (covers(rule("gift_card", category="late"), python) or "")
    assert covers(rule("shop__issue_voucher", category="dégât"), mcp) is None
    assert "category other only" in (
        covers(rule("shop__issue_voucher", category="other"), mcp) or ""
    )


def test_a_call_without_its_declared_category_is_not_covered() -> None:
    missing = tool_action("gift_card", {"value": "5"}, None, "kind")
    assert "covers category damaged only" in (
        covers(rule("gift_card", category="damaged"), missing) or ""
    )
