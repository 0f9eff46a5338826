"""How the loop reads a model reply: the content and the stop reason, together.

A reply is an answer only when it has text *and* the model said it was done
(`end_turn` or `stop_sequence`). A cut reply (`max_tokens`) is a failure even when it
holds text or a tool call: its JSON may be incomplete, so nothing in it is executed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from workflows.contracts import ModelReply, OutcomeReason, TextBlock, ToolUseBlock

ReplyKind = Literal["answer", "tool_calls", "pause", "failure"]

_FAILURE_BY_STOP_REASON: Mapping[str, OutcomeReason] = MappingProxyType(
    {
        "max_tokens": "truncated_reply",
        "refusal": "refusal",
        "model_context_window_exceeded": "context_window_exceeded",
    }
)

_FAILURE_DETAIL: Mapping[OutcomeReason, str] = MappingProxyType(
    {
        "truncated_reply": "The model's reply was cut at its token limit; a cut reply is not an "
        "answer and none of its tool calls were run.",
        "refusal": "The model refused to continue.",
        "context_window_exceeded": "The conversation no longer fits in the model's context window.",
        "empty_reply": "The model's reply held neither a final answer nor a tool call to run.",
    }
)


@dataclass(frozen=True)
class ClassifiedReply:
    kind: ReplyKind
    text: str = ""
    tool_calls: tuple[ToolUseBlock, ...] = ()
    failure: OutcomeReason | None = None

    @property
    def failure_detail(self) -> str:
        return _FAILURE_DETAIL.get(self.failure, "") if self.failure else ""


def classify(reply: ModelReply) -> ClassifiedReply:
    failure = _FAILURE_BY_STOP_REASON.get(reply.stop_reason)
    if failure is not None:
        return ClassifiedReply(kind="failure", failure=failure)
    # Text may precede tool calls: read every block, never content[0].
    calls = tuple(block for block in reply.content if isinstance(block, ToolUseBlock))
    text = "\n".join(block.text for block in reply.content if isinstance(block, TextBlock)).strip()
    if calls:
        # Even in a paused turn: a tool_use sent back without its result is refused.
        return ClassifiedReply(kind="tool_calls", text=text, tool_calls=calls)
    if reply.stop_reason == "pause_turn":
        return ClassifiedReply(kind="pause")
    if text and reply.stop_reason in ("end_turn", "stop_sequence"):
        return ClassifiedReply(kind="answer", text=text)
    return ClassifiedReply(kind="failure", failure="empty_reply")
