"""The Anthropic adapter against a local Messages API: the wire format and the errors.

The server (`tests/anthropic_server.py`) is real HTTP on 127.0.0.1, so the SDK's own
request building, response parsing and exception classes are what the assertions see.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
from temporalio.exceptions import ApplicationError

from tests.anthropic_server import FakeMessagesApi, error, message, serving
from workflows.contracts import (
    Message,
    ModelRef,
    ModelRequest,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolChoice,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from workflows.tool_catalog import offered_tools
from workflows.triage import classify_tool

# The SDK is imported by the tests that use it, not when the module is collected: every
# test process collects every module, and `anthropic` is about 1.5 s of CPU to import.
if TYPE_CHECKING:
    from activities.models.anthropic_adapter import AnthropicModel

NO_ARGUMENTS = {"type": "object", "properties": {}, "additionalProperties": False}


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesApi]:
    with serving(monkeypatch) as fake:
        yield fake


@pytest.fixture
async def model(api: FakeMessagesApi) -> AsyncIterator[AnthropicModel]:
    from activities.models.anthropic_adapter import AnthropicModel

    adapter = AnthropicModel(api_key="test-key", base_url=api.base_url, timeout_seconds=5)
    try:
        yield adapter
    finally:
        await adapter.close()


def model_request(**changes: Any) -> ModelRequest:
    base = ModelRequest(
        model=ModelRef(provider="anthropic", model_id="claude-test-1"),
        system="You are a support agent.",
        messages=[
            Message(role="user", content=[TextBlock(text="Answer ticket T-1.")]),
            Message(
                role="assistant",
                content=[
                    TextBlock(text="Let me look."),
                    ToolUseBlock(id="toolu_1", name="get_order", input={}),
                ],
            ),
            Message(
                role="user",
                content=[ToolResultBlock(tool_use_id="toolu_1", content="timeout", is_error=True)],
            ),
        ],
        tools=[
            ToolSpec(name="read_ticket", description="Reads.", input_schema=NO_ARGUMENTS),
            ToolSpec(name="get_order", description="Looks up.", input_schema=NO_ARGUMENTS),
        ],
        max_tokens=512,
        user_hash="actor-5f2c",
    )
    return base.model_copy(update=changes)


async def test_request_is_sent_in_the_messages_api_shape(
    api: FakeMessagesApi, model: AnthropicModel
) -> None:
    api.enqueue(200, message([{"type": "text", "text": "Done."}], "end_turn"))
    await model.complete(model_request())

    ((path, headers, body),) = api.requests
    assert path == "/v1/messages"
    # The SDK chooses the header (x-api-key or a bearer token); the key must be sent.
    sent = {headers.get("x-api-key"), headers.get("authorization")}
    assert sent & {"test-key", "Bearer test-key"}
    ephemeral = {"type": "ephemeral"}
    assert body == {
        "model": "claude-test-1",
        "max_tokens": 512,
        "system": [
            {"type": "text", "text": "You are a support agent.", "cache_control": ephemeral}
        ],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Answer ticket T-1."}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me look."},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_order", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": "timeout",
                        "is_error": True,
                    }
                ],
            },
        ],
        "tools": [
            {"name": "read_ticket", "description": "Reads.", "input_schema": NO_ARGUMENTS},
            {
                "name": "get_order",
                "description": "Looks up.",
                "input_schema": NO_ARGUMENTS,
                "cache_control": ephemeral,
            },
        ],
        "tool_choice": {"type": "auto"},
        "metadata": {"user_id": "actor-5f2c"},
    }


def test_tool_choice_and_optional_parts() -> None:
    from activities.models.anthropic_adapter import request_params

    forced = request_params(model_request(tool_choice=ToolChoice(type="tool", name="get_order")))
    assert forced["tool_choice"] == {"type": "tool", "name": "get_order"}
    bare = request_params(model_request(tools=[], system="", user_hash=None))
    assert not {"tools", "tool_choice", "system", "metadata"} & bare.keys()
    with pytest.raises(ApplicationError, match="needs the name") as raised:
        request_params(model_request(tool_choice=ToolChoice(type="tool")))
    assert raised.value.non_retryable


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        (ToolChoice(type="auto"), {"type": "auto"}),
        (ToolChoice(type="any"), {"type": "any"}),
        (ToolChoice(type="tool", name="get_order"), {"type": "tool", "name": "get_order"}),
        # Tools stay declared: the history holds calls the API must be able to read.
        (ToolChoice(type="none"), {"type": "none"}),
    ],
)
async def test_every_tool_choice_reaches_the_api_with_the_tools(
    api: FakeMessagesApi, model: AnthropicModel, choice: ToolChoice, sent: dict[str, str]
) -> None:
    api.enqueue(200, message([{"type": "text", "text": "Done."}], "end_turn"))
    await model.complete(model_request(tool_choice=choice))

    (request,) = api.requests
    assert request.body["tool_choice"] == sent
    assert [tool["name"] for tool in request.body["tools"]] == ["read_ticket", "get_order"]


def test_no_tool_is_sent_strict() -> None:
    from activities.models.anthropic_adapter import request_params

    # See the adapter's note on `strict`: the schemas that would need it most use
    # keywords outside the strict subset, which the SDK would move into descriptions.
    assert all("strict" not in tool for tool in request_params(model_request())["tools"])


async def test_reply_keeps_thinking_text_and_tool_calls_in_order(
    api: FakeMessagesApi, model: AnthropicModel
) -> None:
    content: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": "The order first.", "signature": "sig"},
        {"type": "redacted_thinking", "data": "EmwKAhgB"},
        {"type": "text", "text": "Let me check your order."},
        {"type": "tool_use", "id": "toolu_9", "name": "get_order", "input": {"x": 1}},
    ]
    usage = {"cache_creation_input_tokens": 900, "cache_read_input_tokens": None}
    api.enqueue(200, message(content, "tool_use", **usage))

    reply = await model.complete(model_request())

    assert reply.content == [
        ThinkingBlock(thinking="The order first.", signature="sig"),
        RedactedThinkingBlock(data="EmwKAhgB"),
        TextBlock(text="Let me check your order."),
        ToolUseBlock(id="toolu_9", name="get_order", input={"x": 1}),
    ]
    assert reply.stop_reason == "tool_use"
    assert reply.usage == Usage(input_tokens=120, output_tokens=30, cache_creation_input_tokens=900)
    assert reply.model_id == "claude-test-1"


async def test_a_cut_reply_is_returned_as_cut(api: FakeMessagesApi, model: AnthropicModel) -> None:
    api.enqueue(200, message([{"type": "text", "text": "Your order"}], "max_tokens"))
    reply = await model.complete(model_request())
    assert reply.stop_reason == "max_tokens"


async def test_a_reply_without_stop_reason_is_refused(
    api: FakeMessagesApi, model: AnthropicModel
) -> None:
    api.enqueue(200, message([{"type": "text", "text": "Hello"}], None))
    with pytest.raises(ApplicationError, match="stop reason") as raised:
        await model.complete(model_request())
    assert raised.value.type == "ModelBadReply"
    assert raised.value.non_retryable


async def test_refused_key_fails_without_retrying(
    api: FakeMessagesApi, model: AnthropicModel
) -> None:
    api.enqueue(401, error("authentication_error", "invalid x-api-key"))
    with pytest.raises(ApplicationError, match="authentication failed") as raised:
        await model.complete(model_request())
    assert raised.value.type == "ModelAuthenticationFailed"
    assert raised.value.non_retryable
    assert "test-key" not in str(raised.value)


@pytest.mark.parametrize(
    ("status", "kind", "error_type", "message"),
    [
        (400, "invalid_request_error", "ModelBadRequest", "max_tokens: too large"),
        (403, "permission_error", "ModelPermissionDenied", "may not use model 'claude-test-1'"),
        (404, "not_found_error", "ModelNotFound", "model 'claude-test-1' was not found"),
    ],
)
async def test_request_errors_are_not_retried(
    api: FakeMessagesApi,
    model: AnthropicModel,
    status: int,
    kind: str,
    error_type: str,
    message: str,
) -> None:
    api.enqueue(status, error(kind, "max_tokens: too large"))
    with pytest.raises(ApplicationError, match=message) as raised:
        await model.complete(model_request())
    assert (raised.value.type, raised.value.non_retryable) == (error_type, True)


async def test_rate_limit_retries_after_the_servers_delay(
    api: FakeMessagesApi, model: AnthropicModel
) -> None:
    api.enqueue(429, error("rate_limit_error", "slow down"), headers={"retry-after": "7"})
    with pytest.raises(ApplicationError) as raised:
        await model.complete(model_request())
    assert raised.value.type == "ModelRateLimited"
    assert not raised.value.non_retryable
    assert raised.value.next_retry_delay == timedelta(seconds=7)
    assert len(api.requests) == 1  # the SDK did not retry on its own


@pytest.mark.parametrize(
    ("status", "error_type"), [(529, "ModelOverloaded"), (500, "ModelUnavailable")]
)
async def test_server_trouble_is_retryable(
    api: FakeMessagesApi, model: AnthropicModel, status: int, error_type: str
) -> None:
    api.enqueue(status, error("overloaded_error", "Overloaded"))
    with pytest.raises(ApplicationError) as raised:
        await model.complete(model_request())
    assert (raised.value.type, raised.value.non_retryable) == (error_type, False)
    assert raised.value.next_retry_delay is None


async def test_timeout_is_retryable(api: FakeMessagesApi) -> None:
    from activities.models.anthropic_adapter import AnthropicModel

    api.enqueue(200, message([], "end_turn"), delay_seconds=2)
    impatient = AnthropicModel(api_key="test-key", base_url=api.base_url, timeout_seconds=0.2)
    try:
        with pytest.raises(ApplicationError, match="within 0.2 seconds") as raised:
            await impatient.complete(model_request())
    finally:
        await impatient.close()
    assert (raised.value.type, raised.value.non_retryable) == ("ModelUnavailable", False)


async def test_unreachable_api_is_retryable(api: FakeMessagesApi) -> None:
    from activities.models.anthropic_adapter import AnthropicModel

    address = api.base_url
    api.server.shutdown()
    api.server.server_close()
    unreachable = AnthropicModel(api_key="test-key", base_url=address, timeout_seconds=1)
    try:
        with pytest.raises(ApplicationError, match="could not connect") as raised:
            await unreachable.complete(model_request())
    finally:
        await unreachable.close()
    assert (raised.value.type, raised.value.non_retryable) == ("ModelUnavailable", False)


def test_the_schemas_with_arguments_are_outside_the_strict_subset() -> None:
    from anthropic import transform_schema

    # Why no tool is strict (see the adapter's note): strict mode would have to rewrite
    # the schemas that matter. If this starts failing, strict may be worth turning on.
    specs = [tool.spec() for tool in offered_tools()] + [classify_tool()]
    rewritten = {
        spec.name for spec in specs if transform_schema(spec.input_schema) != spec.input_schema
    }
    assert rewritten == {"refund", "classify_ticket"}


def test_thinking_is_asked_for_only_with_a_budget_and_a_free_tool_choice() -> None:
    from activities.models.anthropic_adapter import request_params

    assert "thinking" not in request_params(model_request())
    thinking = request_params(model_request(thinking_budget_tokens=2048))["thinking"]
    assert thinking == {"type": "enabled", "budget_tokens": 2048}
    # The API takes no thinking with a forced tool (triage forces classify_ticket).
    forced = model_request(
        thinking_budget_tokens=2048, tool_choice=ToolChoice(type="tool", name="get_order")
    )
    assert "thinking" not in request_params(forced)
    assert "thinking" not in request_params(
        model_request(thinking_budget_tokens=2048, tool_choice=ToolChoice(type="any"))
    )
