"""A Chat Completions reply as our neutral ModelReply (the request: openai_wire.py).

Pure mapping: the SDK's types are read, never imported at run time.

Design notes:

- Reasoning is kept, never sent back. A reply's `reasoning_content` (vLLM, llama.cpp,
  DeepSeek), `reasoning` (Ollama, OpenRouter) or a leading `<think>…</think>` in the
  text (Qwen3 and others, when the server does not split it out) becomes a thinking
  block without a signature: on the record, never read as the answer.
- `finish_reason`: `stop` is `end_turn` (or `tool_use` when the message calls tools: some
  servers say `stop` there), `tool_calls` is `tool_use`, `length` is `max_tokens` (a cut
  reply: nothing in it runs), `content_filter` or a `refusal` in the message is a
  refusal. Anything else is not a Chat Completions reply: `ModelBadReply`.
- A call whose arguments are not a JSON object (cut, or a small model's slip) is kept
  with `{"arguments_not_valid_json": <the raw text>}` as its input. Every tool's schema
  refuses that key, so the workflow answers the call with an error result that names
  it, and never runs it; the next request sends that object, valid JSON, back. Blank
  arguments are `{}`: servers send "" for a tool without parameters.
- Call ids. The workflow keys tool calls and refunds by their id, so an id must be
  unique within the run. A missing id, or one the conversation already holds (a server
  that numbers calls per turn: `call_0` every time), is replaced by a fresh one; the
  server only ever sees ours again.
- Usage: `prompt_tokens` counts cached tokens too; they are split out as cache reads,
  as the Messages API counts them.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import TYPE_CHECKING, Any

from temporalio.exceptions import ApplicationError

from workflows.contracts import (
    ModelReply,
    ReplyBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion, ChatCompletionMessage

INVALID_ARGUMENTS_KEY = "arguments_not_valid_json"
REASONING_FIELDS = ("reasoning_content", "reasoning")
# A leading reasoning section; the opening tag may sit in the prompt, not the reply.
THINK = re.compile(r"^\s*(?:<think>)?(?P<thought>.*?)</think>\s*", re.DOTALL)
BASE_URL_HINT = "check that SIGNOFF_OPENAI_BASE_URL points at a Chat Completions API"


def reply_from(completion: ChatCompletion, taken_ids: set[str]) -> ModelReply:
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list) or not choices:
        # Retrying the same call through the same endpoint returns the same shape.
        raise bad_reply(f"the model server's reply holds no choice; {BASE_URL_HINT}.")
    choice = choices[0]
    message = choice.message
    content: list[ReplyBlock] = []
    text = text_of(message.content)
    thought = reasoning_of(message)
    think = THINK.match(text) if "</think>" in text else None
    if think is not None:
        thought = thought or think.group("thought").strip()
        text = text[think.end() :]
    if thought:
        content.append(ThinkingBlock(thinking=thought, signature=""))
    if text.strip():
        content.append(TextBlock(text=text))
    taken = set(taken_ids)
    for call in message.tool_calls or []:
        function = getattr(call, "function", None)
        if function is None:
            continue  # a custom (free-text) tool: we declare none
        call_id = call.id if call.id and call.id not in taken else new_call_id()
        taken.add(call_id)
        arguments = tool_arguments(function.arguments)
        # A nameless call is kept: the catalog answers it as an unknown tool.
        name = function.name or ""
        content.append(ToolUseBlock(id=call_id, name=name, input=arguments))
    has_calls = any(isinstance(block, ToolUseBlock) for block in content)
    return ModelReply(
        content=content,
        stop_reason=stop_reason(choice.finish_reason, has_calls, message.refusal),
        usage=usage_of(completion),
        model_id=completion.model or "",
    )


def stop_reason(finish_reason: str | None, has_calls: bool, refusal: str | None) -> StopReason:
    if finish_reason == "length":
        return "max_tokens"
    if finish_reason == "content_filter" or refusal:
        return "refusal"
    if finish_reason in ("tool_calls", "function_call"):
        return "tool_use"
    if finish_reason == "stop":
        return "tool_use" if has_calls else "end_turn"
    raise bad_reply(
        f"the model server returned a reply without a known finish reason "
        f"({finish_reason!r}); {BASE_URL_HINT}."
    )


def text_of(content: object) -> str:
    """The message's text; a few servers send content parts instead of a string."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, dict)
            and part.get("type") == "text"
            and isinstance(part.get("text"), str)
        )
    return ""


def reasoning_of(message: ChatCompletionMessage) -> str:
    extra = message.model_extra or {}
    for name in REASONING_FIELDS:
        value = extra.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def tool_arguments(raw: object) -> dict[str, Any]:
    """The call's arguments as an object, or the sentinel that no schema accepts."""
    if isinstance(raw, dict):  # a server that sends the object itself
        return raw
    text = raw if isinstance(raw, str) else ""
    if not text.strip():
        return {}
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {INVALID_ARGUMENTS_KEY: text}


def _no_constant(name: str) -> Any:
    # NaN and Infinity are not JSON, and would not survive the data converter.
    raise ValueError(f"{name} is not JSON")


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def usage_of(completion: ChatCompletion) -> Usage:
    usage = completion.usage
    if usage is None:  # a server that does not count
        return Usage()
    details = usage.prompt_tokens_details
    cached = (details.cached_tokens or 0) if details is not None else 0
    # `or 0`: a server may send null where the API promises a count.
    return Usage(
        input_tokens=max(0, (usage.prompt_tokens or 0) - cached),
        output_tokens=usage.completion_tokens or 0,
        cache_read_input_tokens=cached,
    )


def bad_reply(message: str) -> ApplicationError:
    return ApplicationError(message, type="ModelBadReply", non_retryable=True)
