"""Context clearing keeps every tool_use answered and the newest results intact."""

from __future__ import annotations

from workflows.context import CLEARED_STUB, clear_old_tool_results
from workflows.contracts import Message, TextBlock, ToolResultBlock, ToolUseBlock


def conversation(turns: int) -> list[Message]:
    messages = [Message(role="user", content=[TextBlock(text="Help me.")])]
    for turn in range(turns):
        messages.append(
            Message(
                role="assistant",
                content=[ToolUseBlock(id=f"t{turn}", name="get_order", input={})],
            )
        )
        messages.append(
            Message(
                role="user",
                content=[ToolResultBlock(tool_use_id=f"t{turn}", content=f"result {turn}")],
            )
        )
    return messages


def results(messages: list[Message]) -> list[ToolResultBlock]:
    return [b for m in messages for b in m.content if isinstance(b, ToolResultBlock)]


def test_all_but_the_last_results_are_stubbed_under_the_same_ids() -> None:
    cleared, count = clear_old_tool_results(conversation(5), keep=2)

    assert count == 3
    assert [r.tool_use_id for r in results(cleared)] == ["t0", "t1", "t2", "t3", "t4"]
    assert [r.content for r in results(cleared)] == [
        CLEARED_STUB,
        CLEARED_STUB,
        CLEARED_STUB,
        "result 3",
        "result 4",
    ]
    # The assistant turns, and so every tool_use, are untouched.
    assert [m for m in cleared if m.role == "assistant"] == [
        m for m in conversation(5) if m.role == "assistant"
    ]


def test_nothing_to_clear_returns_the_same_messages() -> None:
    messages = conversation(2)
    cleared, count = clear_old_tool_results(messages, keep=3)
    assert count == 0 and cleared is messages


def test_stubs_are_not_counted_again() -> None:
    once, _ = clear_old_tool_results(conversation(4), keep=1)
    twice, count = clear_old_tool_results(once, keep=1)
    assert count == 0 and twice is once
