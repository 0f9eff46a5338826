"""A waiting action as a reviewer reads it (signoff/service/action_cards.py), for every
kind of tool: the profile's card where it names one, the default card otherwise; values
as a person reads them (an MCP tool's JSON decoded, objects indented, long text as a
block); money only where the action has an exposure; what the agent may do next."""

from __future__ import annotations

from signoff.config.profiles import BUILTIN_PROFILES, STRICT_PROFILES, load_profile_file
from signoff.service.action_cards import card_of, default_title, readable
from tests.unit.test_action_hold import an_action
from workflows.actions import PendingAction
from workflows.exposure import ActionExposure
from workflows.mcp_tools import shown_arguments

BUILTIN = load_profile_file(BUILTIN_PROFILES, builtin=True).profiles
STRICT = load_profile_file(STRICT_PROFILES).profiles
LETTER = "Hello,\nthank you for writing. A replacement ships tomorrow."


def of_tool(tool: str, arguments: dict[str, str], **update: object) -> PendingAction:
    return an_action().model_copy(
        update={"tool": tool, "arguments": arguments, "exposure": None, **update}
    )


def test_a_tool_without_a_card_is_titled_by_its_name() -> None:
    assert default_title("issue_voucher") == "Issue voucher"
    assert default_title("shop__issue_voucher") == "Issue voucher (shop)"


def test_values_read_as_a_person_reads_them() -> None:
    mcp = shown_arguments({"amount": "15.00", "count": 2, "items": [{"sku": "K-1"}]})
    assert readable(mcp["amount"], mcp=True) == ("15.00", "text")  # no JSON quotes
    assert readable(mcp["count"], mcp=True) == ("2", "text")
    assert readable(mcp["items"], mcp=True) == ('[\n  {\n    "sku": "K-1"\n  }\n]', "json")
    assert readable(LETTER, mcp=False) == (LETTER, "long_text")
    assert readable('"quoted"', mcp=False) == ('"quoted"', "text")  # a Python tool's text


def test_the_profile_card_names_the_reply_and_what_approving_does() -> None:
    action = of_tool("send_reply", {"text": LETTER}, reason="")
    card = card_of(action, STRICT)
    assert card.title == "Send a reply to the customer"
    assert card.effect is not None and "sent to the customer" in card.effect
    assert [(line.name, line.view, line.text) for line in card.lines] == [
        ("text", "long_text", LETTER)
    ]
    # Under the strict profile a refund after it waits for a reviewer too.
    assert (card.then_alone, card.then_asked) == ([], ["Refund"])


def test_after_a_refund_the_builtin_agent_may_reply_without_asking() -> None:
    card = card_of(an_action(), BUILTIN)
    assert card.then_alone == ["Send a reply to the customer"]
    assert card.then_asked == []


def test_an_mcp_tool_whose_argument_is_named_amount_has_no_money_without_an_exposure() -> None:
    arguments = shown_arguments({"customer_id": "K-7", "amount": "15.00", "note": "Grüße ✓"})
    card = card_of(of_tool("shop__issue_voucher", arguments), None)
    assert card.title == "Issue voucher (shop)"
    assert card.effect is None and (card.then_alone, card.then_asked) == ([], [])
    assert [(line.name, line.view, line.text) for line in card.lines] == [
        ("amount", "text", "15.00"),
        ("customer_id", "text", "K-7"),
        ("note", "text", "Grüße ✓"),
    ]


def test_the_declared_exposure_reads_as_money() -> None:
    exposure = ActionExposure(amount="15.00", currency="EUR", amount_argument="value")
    action = of_tool("issue_voucher", {"value": "15", "reason": "late"}, exposure=exposure)
    lines = {line.name: (line.view, line.text) for line in card_of(action, None).lines}
    assert lines == {"value": ("money", "15.00 EUR"), "reason": ("text", "late")}
