"""The Anthropic Messages API behind the neutral ModelAdapter interface.

Design notes:

- `max_retries=0`: Temporal owns retries, so every attempt is an activity attempt that
  the history shows. The SDK reads `ANTHROPIC_BASE_URL` itself; we pass `base_url`
  only when a caller gives one (tests, a proxy).
- The system prompt and the tool list are the same on every turn of a run: cache
  breakpoints sit on the system block and on the last tool, so that prefix is cached.
- Errors are mapped by the SDK's exception classes, never by message text. Failures
  that will repeat (key, permission, request, model name) are non-retryable; rate
  limits, overload, 5xx, timeouts and lost connections are retryable, after the
  server's `retry-after` when it sends one (an HTTP-date value is ignored: Temporal's
  backoff applies).
- A reply without a known stop reason is not a reply: it would be read as an answer
  or as nothing, so it raises `ModelBadReply` (non-retryable) instead of guessing.
- A `max_tokens` reply keeps its blocks as parsed, tool calls included; their input
  may be incomplete, and the workflow never runs the tool calls of a cut reply.
- Thinking blocks (`thinking` with its signature, `redacted_thinking`) are kept as they
  came and sent back in the assistant turn they belong to: in a tool-use cycle the API
  refuses a turn whose thinking was dropped or changed, and a model that thinks on its
  own would otherwise fail on its second turn. The loop never acts on them. Server-tool
  blocks are dropped: we declare no server tool.
- `tool_choice` is passed as the request says: `auto`, `any`, `tool` (with its name)
  or `none`. With `none` the tools are still declared, since the history may hold calls
  to them and the prefix (and its cache) stays the same.
- No tool is sent with `strict: true`. Strict tool use compiles the schema into a
  grammar and supports a subset of JSON Schema without numeric bounds (`minimum`,
  `exclusiveMinimum`, `maximum`) or string lengths (`minLength`, `maxLength`); the SDK's
  own `anthropic.transform_schema` moves such keywords into the description. Our
  schemas that take arguments use them (`refund`: amount > 0, reason 1 to 500
  characters; `classify_ticket`: urgency 1 to 5, summary length), so strict mode would
  weaken what the model is shown, while the workflow validates every call against the
  full schema anyway (an invalid call becomes an error result, never an action). The
  `anyOf` number-or-string of `amount` would itself be allowed. The tools that qualify
  take no arguments at all, where strict adds nothing; and a model without
  structured-output support would refuse the request.
"""

from __future__ import annotations

from typing import Any, get_args

import anthropic
from anthropic.types import Message as ApiMessage
from anthropic.types import RedactedThinkingBlock as ApiRedactedThinkingBlock
from anthropic.types import TextBlock as ApiTextBlock
from anthropic.types import ThinkingBlock as ApiThinkingBlock
from anthropic.types import ToolUseBlock as ApiToolUseBlock
from temporalio.exceptions import ApplicationError

from activities.models.api_errors import ApiWords, status_error, transport_error
from signoff.config.settings import Settings
from workflows.contracts import (
    Message,
    MessageBlock,
    ModelReply,
    ModelRequest,
    RedactedThinkingBlock,
    ReplyBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolChoice,
    ToolUseBlock,
    Usage,
)

KNOWN_STOP_REASONS: frozenset[str] = frozenset(get_args(StopReason))


def ephemeral() -> dict[str, str]:
    return {"type": "ephemeral"}


class AnthropicModel:
    def __init__(
        self, api_key: str | None, timeout_seconds: float, base_url: str | None = None
    ) -> None:
        options: dict[str, Any] = {"base_url": base_url} if base_url else {}
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, max_retries=0, timeout=timeout_seconds, **options
        )
        self._timeout_seconds = timeout_seconds

    async def complete(self, request: ModelRequest) -> ModelReply:
        params = request_params(request)
        try:
            message = await self._client.messages.create(**params)
        except anthropic.APIError as error:
            raise api_error(error, request.model.model_id, self._timeout_seconds) from None
        return reply_from(message)

    async def close(self) -> None:
        await self._client.close()


# --- request ------------------------------------------------------------------------


def request_params(request: ModelRequest) -> dict[str, Any]:
    params: dict[str, Any] = {
        "model": request.model.model_id,
        "max_tokens": request.max_tokens,
        "messages": [message_param(message) for message in request.messages],
    }
    # The API refuses an empty text block; an empty prompt is no prompt.
    if request.system:
        params["system"] = [{"type": "text", "text": request.system, "cache_control": ephemeral()}]
    if request.tools:
        tools: list[dict[str, Any]] = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
            for tool in request.tools
        ]
        tools[-1]["cache_control"] = ephemeral()
        params["tools"] = tools
        params["tool_choice"] = tool_choice_param(request.tool_choice)
    # The API takes thinking with `auto` or `none` only: a forced tool (triage) goes without.
    if request.thinking_budget_tokens and request.tool_choice.type in ("auto", "none"):
        params["thinking"] = {"type": "enabled", "budget_tokens": request.thinking_budget_tokens}
    if request.user_hash:
        params["metadata"] = {"user_id": request.user_hash}
    return params


def tool_choice_param(choice: ToolChoice) -> dict[str, str]:
    if choice.type != "tool":
        return {"type": choice.type}
    if not choice.name:
        # Our request is wrong, not the API: the same request fails every time.
        raise ApplicationError(
            "tool_choice of type 'tool' needs the name of the tool to force.",
            type="ModelBadRequest",
            non_retryable=True,
        )
    return {"type": "tool", "name": choice.name}


def message_param(message: Message) -> dict[str, Any]:
    return {"role": message.role, "content": [block_param(block) for block in message.content]}


def block_param(block: MessageBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ThinkingBlock):
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if isinstance(block, RedactedThinkingBlock):
        return {"type": "redacted_thinking", "data": block.data}
    return {
        "type": "tool_result",
        "tool_use_id": block.tool_use_id,
        "content": block.content,
        "is_error": block.is_error,
    }


# --- reply --------------------------------------------------------------------------


def reply_from(message: ApiMessage) -> ModelReply:
    stop_reason = message.stop_reason
    if stop_reason not in KNOWN_STOP_REASONS:
        # Retrying the same call through the same endpoint returns the same shape.
        raise ApplicationError(
            f"the model API returned a reply without a known stop reason ({stop_reason!r}); "
            "check that ANTHROPIC_BASE_URL points at a Messages API.",
            type="ModelBadReply",
            non_retryable=True,
        )
    content: list[ReplyBlock] = []
    for block in message.content:
        if isinstance(block, ApiTextBlock):
            content.append(TextBlock(text=block.text))
        elif isinstance(block, ApiToolUseBlock):
            content.append(ToolUseBlock(id=block.id, name=block.name, input=dict(block.input)))
        elif isinstance(block, ApiThinkingBlock):
            content.append(ThinkingBlock(thinking=block.thinking, signature=block.signature))
        elif isinstance(block, ApiRedactedThinkingBlock):
            content.append(RedactedThinkingBlock(data=block.data))
    usage = message.usage
    return ModelReply(
        content=content,
        stop_reason=stop_reason,
        usage=Usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_creation_input_tokens=usage.cache_creation_input_tokens or 0,
            cache_read_input_tokens=usage.cache_read_input_tokens or 0,
        ),
        model_id=message.model,
    )


# --- errors -------------------------------------------------------------------------


WORDS = ApiWords(
    authentication=(
        "authentication failed: the Anthropic API refused the API key. Check ANTHROPIC_API_KEY."
    ),
    permission=(
        "permission denied: the API key may not use model '{model}' ({detail}). Check the "
        "key's workspace and billing, or --model."
    ),
    not_found="model '{model}' was not found; check --model.",
    rate_limited="the Anthropic API rate limit was reached",
    overloaded="the Anthropic API is overloaded",
    failed_status="the Anthropic API failed with HTTP {status}",
    rejected="the Anthropic API rejected the request (HTTP {status}): {detail}",
    timeout="the Anthropic API did not answer within {seconds} seconds",
    connection="could not connect to the Anthropic API",
    call_failed="the Anthropic API call failed ({kind})",
    asker="the API",
)


def api_error(error: anthropic.APIError, model_id: str, timeout_seconds: float) -> ApplicationError:
    """One ApplicationError per failure class (api_errors.py)."""
    if isinstance(error, anthropic.APIStatusError):
        return status_error(
            error.status_code, error.response.headers, WORDS, model_id, api_detail(error)
        )
    kind = (
        "timeout"
        if isinstance(error, anthropic.APITimeoutError)
        else "connection"
        if isinstance(error, anthropic.APIConnectionError)
        else "other"
    )
    return transport_error(kind, WORDS, timeout_seconds, type(error).__name__)


def api_detail(error: anthropic.APIStatusError) -> str:
    # The API's own message names the field at fault and holds no secret.
    return error.api_message or f"HTTP {error.status_code}"


def from_settings(settings: Settings) -> AnthropicModel:
    """The adapter of the `anthropic` provider (signoff/models/anthropic_provider.py),
    built by the worker on the first turn that names it; the key is read here, in the
    worker, and never travels in an activity input."""
    key = settings.anthropic_api_key
    if key is None:
        # The key lives in the worker's environment; retrying here cannot add it.
        raise ApplicationError(
            "authentication failed: no ANTHROPIC_API_KEY is set on the worker. Set it "
            "and restart the worker, or run with --model scripted.",
            type="ModelAuthenticationFailed",
            non_retryable=True,
        )
    return AnthropicModel(
        api_key=key.get_secret_value(), timeout_seconds=settings.anthropic_timeout_seconds
    )
