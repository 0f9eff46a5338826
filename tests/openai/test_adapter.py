"""The OpenAI-compatible adapter against a local Chat Completions API: wire format, replies.

The server (`tests/openai/chat_server.py`) is real HTTP on 127.0.0.1, so the SDK's own
request building, response parsing and exception classes are what the assertions see.
The expected bodies are written out from the API's documented shape, not built with the
adapter's functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from temporalio.exceptions import ApplicationError

from tests.openai.chat_server import FakeChatApi, assistant, completion, tool_call
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

# The SDK is imported by the tests that use it, not when the module is collected: every
# test process collects every module, and `openai` is about 1 s of CPU to import.
if TYPE_CHECKING:
    from activities.models.openai_adapter import OpenAIModel

NO_ARGUMENTS = {"type": "object", "properties": {}, "additionalProperties": False}
Json = dict[str, Any]


def model_request(**changes: Any) -> ModelRequest:
    base = ModelRequest(
        model=ModelRef(provider="openai", model_id="qwen3:4b"),
        system="You are a support agent.",
        messages=[
            Message(role="user", content=[TextBlock(text="Answer ticket T-1.")]),
            Message(
                role="assistant",
                content=[
                    ThinkingBlock(thinking="The order first.", signature=""),
                    RedactedThinkingBlock(data="RW5j"),
                    TextBlock(text="Let me look."),
                    ToolUseBlock(id="call_1", name="get_order", input={}),
                    ToolUseBlock(id="call_2", name="refund", input={"amount": "5.00"}),
                ],
            ),
            Message(
                role="user",
                content=[
                    ToolResultBlock(tool_use_id="call_1", content='{"found": true}'),
                    ToolResultBlock(tool_use_id="call_2", content="timeout", is_error=True),
                ],
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


def function(name: str, description: str) -> Json:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": NO_ARGUMENTS},
    }


def answer(text: str = "Done.") -> Json:
    return completion(assistant(text), "stop")


async def test_request_is_sent_in_the_chat_completions_shape(
    api: FakeChatApi, model: OpenAIModel
) -> None:
    api.reply(answer())
    await model.complete(model_request())

    ((path, headers, body),) = api.requests
    assert path == "/v1/chat/completions"
    # No key set: a placeholder, since the SDK sends none without one and a local
    # server ignores it.
    assert headers["authorization"] == "Bearer no-key"
    assert headers["x-stainless-retry-count"] == "0"
    assert body == {
        "model": "qwen3:4b",
        "max_tokens": 512,
        "messages": [
            {"role": "system", "content": "You are a support agent."},
            {"role": "user", "content": "Answer ticket T-1."},
            # Thinking is not sent back; text and calls are one message.
            {
                "role": "assistant",
                "content": "Let me look.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_order", "arguments": "{}"},
                    },
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "refund", "arguments": '{"amount": "5.00"}'},
                    },
                ],
            },
            # One tool message per call id, in the calls' order; an error says so.
            {"role": "tool", "tool_call_id": "call_1", "content": '{"found": true}'},
            {"role": "tool", "tool_call_id": "call_2", "content": "Error: timeout"},
        ],
        "tools": [function("read_ticket", "Reads."), function("get_order", "Looks up.")],
        "tool_choice": "auto",
        "user": "actor-5f2c",
    }


async def test_a_key_is_sent_as_a_bearer_token(api: FakeChatApi) -> None:
    from activities.models.openai_adapter import OpenAIModel

    api.reply(answer())
    keyed = OpenAIModel(api_key="sk-local", base_url=api.base_url, timeout_seconds=5)
    try:
        await keyed.complete(model_request())
    finally:
        await keyed.close()
    assert api.requests[0].headers["authorization"] == "Bearer sk-local"


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        (ToolChoice(type="auto"), "auto"),
        (ToolChoice(type="any"), "required"),
        (
            ToolChoice(type="tool", name="get_order"),
            {"type": "function", "function": {"name": "get_order"}},
        ),
        # Tools stay declared: the history holds calls the server must be able to read.
        (ToolChoice(type="none"), "none"),
    ],
)
async def test_every_tool_choice_reaches_the_server_with_the_tools(
    api: FakeChatApi, model: OpenAIModel, choice: ToolChoice, sent: str | Json
) -> None:
    api.reply(answer())
    await model.complete(model_request(tool_choice=choice))

    (request,) = api.requests
    assert request.body["tool_choice"] == sent
    assert [tool["function"]["name"] for tool in request.body["tools"]] == [
        "read_ticket",
        "get_order",
    ]


async def test_without_tools_prompt_or_user_nothing_empty_is_sent(
    api: FakeChatApi, model: OpenAIModel
) -> None:
    api.reply(answer())
    opening = [Message(role="user", content=[TextBlock(text="Hi.")])]
    await model.complete(model_request(tools=[], system="", user_hash=None, messages=opening))

    assert api.bodies[0] == {
        "model": "qwen3:4b",
        "max_tokens": 512,
        "messages": [{"role": "user", "content": "Hi."}],
    }


async def test_a_forced_tool_without_a_name_is_refused_before_sending(
    api: FakeChatApi, model: OpenAIModel
) -> None:
    with pytest.raises(ApplicationError, match="needs the name") as raised:
        await model.complete(model_request(tool_choice=ToolChoice(type="tool")))
    assert (raised.value.type, raised.value.non_retryable) == ("ModelBadRequest", True)
    assert api.requests == []


async def test_tool_calls_become_tool_use_blocks_after_the_text(
    api: FakeChatApi, model: OpenAIModel
) -> None:
    api.reply(
        completion(
            assistant(
                "Let me check.",
                tool_call("call_a", "get_order"),
                tool_call("call_b", "refund", {"amount": "12.50", "reason": "broken"}),
            ),
            "tool_calls",
            prompt_tokens=900,
            cached_tokens=700,
        )
    )
    reply = await model.complete(model_request())

    assert reply.content == [
        TextBlock(text="Let me check."),
        ToolUseBlock(id="call_a", name="get_order", input={}),
        ToolUseBlock(id="call_b", name="refund", input={"amount": "12.50", "reason": "broken"}),
    ]
    assert reply.stop_reason == "tool_use"
    # Cached prompt tokens are counted apart, as the Messages API counts them.
    assert reply.usage == Usage(input_tokens=200, output_tokens=30, cache_read_input_tokens=700)
    assert reply.model_id == "qwen3:4b"


@pytest.mark.parametrize(
    ("finish_reason", "message", "stop_reason"),
    [
        ("stop", assistant("Your parcel left today."), "end_turn"),
        ("length", assistant("Your parcel"), "max_tokens"),
        ("content_filter", assistant(None), "refusal"),
        # OpenAI's own refusal field, with a plain `stop`.
        ("stop", assistant(None, refusal="I can't help with that."), "refusal"),
        # Some servers say `stop` when the message calls tools.
        ("stop", assistant(None, tool_call("call_s", "get_order")), "tool_use"),
    ],
)
async def test_finish_reasons_map_to_stop_reasons(
    api: FakeChatApi, model: OpenAIModel, finish_reason: str, message: Json, stop_reason: str
) -> None:
    api.reply(completion(message, finish_reason))
    reply = await model.complete(model_request())
    assert reply.stop_reason == stop_reason


async def test_a_reply_without_a_known_finish_reason_is_refused(
    api: FakeChatApi, model: OpenAIModel
) -> None:
    api.reply(completion(assistant("Hello"), None))
    with pytest.raises(ApplicationError, match="finish reason") as raised:
        await model.complete(model_request())
    assert (raised.value.type, raised.value.non_retryable) == ("ModelBadReply", True)
    assert "SIGNOFF_OPENAI_BASE_URL" in str(raised.value)


async def test_a_reply_without_choices_is_refused(api: FakeChatApi, model: OpenAIModel) -> None:
    api.reply({**answer(), "choices": []})
    with pytest.raises(ApplicationError, match="no choice") as raised:
        await model.complete(model_request())
    assert raised.value.type == "ModelBadReply"


@pytest.mark.parametrize(
    "message",
    [
        assistant("The answer.", reasoning_content="The order first."),  # vLLM, llama.cpp
        assistant("The answer.", reasoning="The order first."),  # Ollama
        assistant("<think>\nThe order first.\n</think>\n\nThe answer."),  # in the text
        assistant("The order first.\n</think>\nThe answer."),  # opening tag in the prompt
    ],
)
async def test_reasoning_is_kept_as_thinking_never_as_the_answer(
    api: FakeChatApi, model: OpenAIModel, message: Json
) -> None:
    api.reply(completion(message, "stop"))
    reply = await model.complete(model_request())
    assert reply.content == [
        ThinkingBlock(thinking="The order first.", signature=""),
        TextBlock(text="The answer."),
    ]


async def test_an_empty_think_section_leaves_no_block(api: FakeChatApi, model: OpenAIModel) -> None:
    api.reply(completion(assistant("<think>\n\n</think>\n\nThe answer."), "stop"))
    reply = await model.complete(model_request())
    assert reply.content == [TextBlock(text="The answer.")]


@pytest.mark.parametrize(
    ("arguments", "parsed"),
    [
        ('{"amount": "89.', {"arguments_not_valid_json": '{"amount": "89.'}),
        ('["89.90"]', {"arguments_not_valid_json": '["89.90"]'}),
        ('{"amount": NaN}', {"arguments_not_valid_json": '{"amount": NaN}'}),
        ("null", {"arguments_not_valid_json": "null"}),
        # A tool without parameters: some servers send nothing at all.
        ("", {}),
        ("  ", {}),
    ],
)
async def test_arguments_that_are_not_a_json_object_are_kept_unparsed(
    api: FakeChatApi, model: OpenAIModel, arguments: str, parsed: Json
) -> None:
    api.reply(completion(assistant(None, tool_call("call_x", "refund", arguments)), "tool_calls"))
    reply = await model.complete(model_request())
    assert reply.content == [ToolUseBlock(id="call_x", name="refund", input=parsed)]


async def test_a_call_id_the_run_already_holds_is_replaced(
    api: FakeChatApi, model: OpenAIModel
) -> None:
    # A server that numbers calls per turn reuses `call_1`; the workflow keys tool calls
    # and refunds by id, so a second `call_1` must not pass for the first.
    api.reply(
        completion(
            assistant(
                None,
                tool_call("call_1", "get_order"),
                tool_call("", "read_ticket"),
                tool_call("call_9", "read_ticket"),
                tool_call("call_9", "get_order"),
            ),
            "tool_calls",
        )
    )
    reply = await model.complete(model_request())

    ids = [block.id for block in reply.content if isinstance(block, ToolUseBlock)]
    assert len(set(ids)) == 4
    assert ids[2] == "call_9"
    assert {"call_1", "call_2", ""}.isdisjoint(ids)
    assert all(call_id.startswith("call_") for call_id in ids)


async def test_text_sent_as_content_parts_is_read(api: FakeChatApi, model: OpenAIModel) -> None:
    parts = [
        {"type": "text", "text": "Your parcel "},
        {"type": "image_url", "image_url": {"url": "data:,"}},
        {"type": "text", "text": "left today."},
    ]
    api.reply(completion(assistant(parts), "stop"))
    reply = await model.complete(model_request())
    assert reply.content == [TextBlock(text="Your parcel left today.")]


async def test_a_server_that_does_not_count_leaves_usage_at_zero(
    api: FakeChatApi, model: OpenAIModel
) -> None:
    body = completion(assistant("Done."), "stop")
    api.reply({**body, "usage": None})
    api.reply({**body, "usage": {"prompt_tokens": None, "completion_tokens": 7}})
    assert (await model.complete(model_request())).usage == Usage()
    assert (await model.complete(model_request())).usage == Usage(output_tokens=7)
