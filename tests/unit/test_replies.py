"""Classifying a reply on its content and stop reason: thinking is never an answer."""

from __future__ import annotations

from workflows.contracts import (
    ModelReply,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)
from workflows.replies import classify

THOUGHT = ThinkingBlock(thinking="The customer wants a refund.", signature="c2ln")


def reply(*blocks: ThinkingBlock | RedactedThinkingBlock | TextBlock | ToolUseBlock) -> ModelReply:
    stop = "tool_use" if any(isinstance(b, ToolUseBlock) for b in blocks) else "end_turn"
    return ModelReply(content=list(blocks), stop_reason=stop, usage=Usage())


def test_a_reply_of_thinking_alone_is_not_an_answer() -> None:
    classified = classify(reply(THOUGHT, RedactedThinkingBlock(data="RW5j")))
    assert (classified.kind, classified.failure) == ("failure", "empty_reply")


def test_thinking_is_not_part_of_the_answer_text() -> None:
    classified = classify(reply(THOUGHT, TextBlock(text="Your refund is on its way.")))
    assert (classified.kind, classified.text) == ("answer", "Your refund is on its way.")


def test_thinking_before_a_call_leaves_the_call() -> None:
    call = ToolUseBlock(id="toolu_1", name="read_ticket", input={})
    classified = classify(reply(THOUGHT, call))
    assert classified.kind == "tool_calls" and classified.tool_calls == (call,)
