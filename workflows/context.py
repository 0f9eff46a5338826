"""Context management: old tool results give way when the conversation grows too big.

Design note. When a turn's prompt passes a threshold, every tool result but the last
few is replaced by a short stub under the same `tool_use_id`: each `tool_use` stays
answered, and the model knows it may call the tool again. Clearing happens in bulk and
only when the threshold is passed again, so that the prompt prefix, and with it the
prompt cache, stays stable between clearings.
"""

from __future__ import annotations

from workflows.contracts import Message, MessageBlock, ToolResultBlock, Usage

CLEARED_STUB = "result cleared to free context; call the tool again if needed"


def prompt_tokens(usage: Usage) -> int:
    return usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens


def clear_old_tool_results(messages: list[Message], keep: int) -> tuple[list[Message], int]:
    """Return the messages with all but the last `keep` tool results stubbed, and how many."""
    positions = [
        (m, b)
        for m, message in enumerate(messages)
        for b, block in enumerate(message.content)
        if isinstance(block, ToolResultBlock) and block.content != CLEARED_STUB
    ]
    to_clear = set(positions[: max(0, len(positions) - keep)])
    if not to_clear:
        return messages, 0
    cleared: list[Message] = []
    for m, message in enumerate(messages):
        blocks: list[MessageBlock] = []
        for b, block in enumerate(message.content):
            if (m, b) in to_clear and isinstance(block, ToolResultBlock):
                block = ToolResultBlock(
                    tool_use_id=block.tool_use_id, content=CLEARED_STUB, is_error=block.is_error
                )
            blocks.append(block)
        cleared.append(Message(role=message.role, content=blocks))
    return cleared, len(to_clear)
