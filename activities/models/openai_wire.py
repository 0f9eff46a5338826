"""Our neutral ModelRequest as a Chat Completions request (the reply: openai_reply.py).

Pure mapping, no SDK at run time (openai_adapter.py makes the call), so the unit tests
and the worker's start need no `openai` import.

Design notes:

- Our conversation has the Messages API's shape (workflows/contracts.py); Chat
  Completions has no content blocks. The system prompt is a `system` message. An
  assistant turn is one message: its text as `content` ("" when it only calls: some
  local servers refuse a null content) and its calls as `tool_calls`, arguments as JSON
  text. Each tool result becomes its own `tool` message with the call's id, in the order
  of the calls and ahead of any user text of the same turn, since the API wants the
  results right after the calls.
- Chat Completions has no `is_error`: an error result goes back as "Error: " and its
  text, so that the model still tells a failure from data.
- Thinking blocks are not sent: the API takes no reasoning back, and chat templates
  drop earlier turns' reasoning anyway.
- `max_tokens`, not `max_completion_tokens`: the one every local server reads. OpenAI's
  reasoning models (o-series) refuse it.
"""

from __future__ import annotations

import json
from typing import Any

from temporalio.exceptions import ApplicationError

from workflows.contracts import (
    Message,
    ModelRequest,
    TextBlock,
    ToolChoice,
    ToolResultBlock,
    ToolUseBlock,
)

Json = dict[str, Any]

ERROR_RESULT_PREFIX = "Error: "

_TOOL_CHOICE: dict[str, str] = {"auto": "auto", "any": "required", "none": "none"}


def request_params(request: ModelRequest) -> Json:
    messages: list[Json] = []
    # An empty prompt is no prompt, as on the Messages API.
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for message in request.messages:
        messages.extend(chat_messages(message))
    params: Json = {
        "model": request.model.model_id,
        "max_tokens": request.max_tokens,
        "messages": messages,
    }
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.input_schema,
                },
            }
            for tool in request.tools
        ]
        # With `none` the tools stay declared: the history holds calls to them.
        params["tool_choice"] = tool_choice_param(request.tool_choice)
    if request.user_hash:
        params["user"] = request.user_hash
    return params


def tool_choice_param(choice: ToolChoice) -> str | Json:
    if choice.type != "tool":
        return _TOOL_CHOICE[choice.type]
    if not choice.name:
        # Our request is wrong, not the server: the same request fails every time.
        raise ApplicationError(
            "tool_choice of type 'tool' needs the name of the tool to force.",
            type="ModelBadRequest",
            non_retryable=True,
        )
    return {"type": "function", "function": {"name": choice.name}}


def chat_messages(message: Message) -> list[Json]:
    text = "\n\n".join(block.text for block in message.content if isinstance(block, TextBlock))
    if message.role == "assistant":
        calls = [block for block in message.content if isinstance(block, ToolUseBlock)]
        turn: Json = {"role": "assistant", "content": text}
        if calls:
            turn["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.input)},
                }
                for call in calls
            ]
        return [turn]
    results: list[Json] = [
        {"role": "tool", "tool_call_id": block.tool_use_id, "content": result_text(block)}
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]
    return results + ([{"role": "user", "content": text}] if text or not results else [])


def result_text(block: ToolResultBlock) -> str:
    return ERROR_RESULT_PREFIX + block.content if block.is_error else block.content


def call_ids(request: ModelRequest) -> set[str]:
    """Every tool-call id the conversation already holds."""
    return {
        block.id
        for message in request.messages
        for block in message.content
        if isinstance(block, ToolUseBlock)
    }
