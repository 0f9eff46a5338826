"""Whether the model of the calling run asked for the very action an effect carries out
(activities/run_provenance.py `model_asked`), in each form the gate writes one: an MCP
tool's arguments as the JSON they are sent as, the refund's amount as money and its
reason as the action's, any other tool's arguments normalized by its model."""

from __future__ import annotations

from typing import Any

from activities.run_provenance import RunStart, model_asked
from tests.unit.test_auto_effects import BUILT_IN, reply_command, request_on
from workflows.actions import PendingAction
from workflows.contracts import WORKFLOW_NAME, ToolUseBlock
from workflows.mcp_tools import offered_name, shown_arguments

QUEUE = "signoff"
CREATE_ISSUE = offered_name("tracker", "create_issue")
ISSUE = {"title": "Kettle lid cracks", "labels": ["hardware", "urgent"], "priority": 2}
REASON = "The lamp arrived dented."


def start_with(*uses: ToolUseBlock) -> RunStart:
    return RunStart(WORKFLOW_NAME, QUEUE, request_on(BUILT_IN), uses)


def action_of(tool: str, arguments: dict[str, str], reason: str = "") -> PendingAction:
    base = reply_command(request_on(BUILT_IN)).action
    return base.model_copy(update={"tool": tool, "arguments": arguments, "reason": reason})


def asked(name: str, arguments: dict[str, Any]) -> ToolUseBlock:
    return ToolUseBlock(id="toolu_1", name=name, input=arguments)


def test_an_mcp_call_is_the_models_when_its_shown_arguments_are_what_it_sent() -> None:
    # The gate shows each argument as compact JSON; the model's key order does not count.
    reordered = {"priority": 2, "labels": ["hardware", "urgent"], "title": "Kettle lid cracks"}
    action = action_of(CREATE_ISSUE, shown_arguments(ISSUE))
    assert model_asked(start_with(asked(CREATE_ISSUE, reordered)), action)


def test_an_mcp_call_with_any_argument_changed_is_not_the_models() -> None:
    start = start_with(asked(CREATE_ISSUE, ISSUE))
    other_priority = action_of(CREATE_ISSUE, shown_arguments({**ISSUE, "priority": 1}))
    extra = action_of(CREATE_ISSUE, shown_arguments({**ISSUE, "assignee": "mallory"}))
    as_text = action_of(CREATE_ISSUE, {**shown_arguments(ISSUE), "priority": '"2"'})
    for action in (other_priority, extra, as_text):
        assert not model_asked(start, action)
    # Another server's tool of the same name, with the same arguments.
    elsewhere = offered_name("billing", "create_issue")
    assert not model_asked(start, action_of(elsewhere, shown_arguments(ISSUE)))


def test_a_refund_is_the_models_for_its_amount_and_reason() -> None:
    action = action_of("refund", {"amount": "20.00", "currency": "EUR"}, REASON)
    assert model_asked(start_with(asked("refund", {"amount": "20", "reason": REASON})), action)


def test_a_refund_with_another_amount_or_reason_is_not_the_models() -> None:
    start = start_with(asked("refund", {"amount": "20.00", "reason": REASON}))
    more = action_of("refund", {"amount": "45.00", "currency": "EUR"}, REASON)
    other_reason = action_of("refund", {"amount": "20.00", "currency": "EUR"}, "Goodwill.")
    assert not model_asked(start, more)
    assert not model_asked(start, other_reason)
    # A call the refund's own model refuses is no refund the model asked for.
    refused = start_with(asked("refund", {"amount": "-5", "reason": REASON}))
    assert not model_asked(refused, action_of("refund", {"amount": "-5.00"}, REASON))


def test_a_call_of_another_id_or_tool_is_not_the_models() -> None:
    action = action_of("send_reply", {"text": "Hello"})
    other_id = ToolUseBlock(id="toolu_2", name="send_reply", input={"text": "Hello"})
    assert not model_asked(start_with(other_id), action)
    assert not model_asked(start_with(asked("read_ticket", {})), action)
    assert model_asked(start_with(asked("send_reply", {"text": "Hello"})), action)


def test_no_model_call_at_all_asks_for_nothing() -> None:
    assert not model_asked(start_with(), action_of("send_reply", {"text": "Hello"}))
