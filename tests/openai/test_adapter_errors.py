"""HTTP errors of a Chat Completions server: the same table as the Anthropic adapter's.

Each error becomes one ApplicationError: non-retryable with the setting to fix when a
retry cannot help, retryable (after the server's `retry-after`) when waiting can.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

import pytest
from temporalio.exceptions import ApplicationError

from tests.openai.chat_server import FakeChatApi, assistant, completion, error
from tests.openai.test_adapter import model_request

# The SDK is imported by the tests that use it, not when the module is collected: every
# test process collects every module, and `openai` is about 1 s of CPU to import.
if TYPE_CHECKING:
    from activities.models.openai_adapter import OpenAIModel


async def failure(model: OpenAIModel) -> ApplicationError:
    with pytest.raises(ApplicationError) as raised:
        await model.complete(model_request())
    return raised.value


async def test_a_refused_key_names_the_setting_and_not_the_key(api: FakeChatApi) -> None:
    from activities.models.openai_adapter import OpenAIModel

    api.enqueue(401, error("Incorrect API key provided: sk-secr***", "invalid_api_key"))
    keyed = OpenAIModel(api_key="sk-secret", base_url=api.base_url, timeout_seconds=5)
    try:
        raised = await failure(keyed)
    finally:
        await keyed.close()
    assert (raised.type, raised.non_retryable) == ("ModelAuthenticationFailed", True)
    assert "authentication failed" in raised.message
    assert "SIGNOFF_OPENAI_API_KEY" in raised.message and "sk-secret" not in raised.message
    assert len(api.requests) == 1  # the SDK did not retry on its own


@pytest.mark.parametrize(
    ("status", "error_type", "words"),
    [
        (400, "ModelBadRequest", "rejected the request (HTTP 400): the detail"),
        (422, "ModelBadRequest", "rejected the request (HTTP 422): the detail"),
        (403, "ModelPermissionDenied", "may not use model 'qwen3:4b' (the detail)"),
        (404, "ModelNotFound", "model 'qwen3:4b' was not found at http://127.0.0.1:"),
    ],
)
async def test_request_errors_are_not_retried(
    api: FakeChatApi, model: OpenAIModel, status: int, error_type: str, words: str
) -> None:
    api.enqueue(status, error("the detail"))
    raised = await failure(model)
    assert (raised.type, raised.non_retryable) == (error_type, True)
    assert words in raised.message


async def test_an_unknown_model_says_how_to_get_it(api: FakeChatApi, model: OpenAIModel) -> None:
    # Ollama's own words for a model it does not have.
    api.enqueue(404, error('model "qwen3:4b" not found, try pulling it first', "api_error"))
    raised = await failure(model)
    assert 'model "qwen3:4b" not found, try pulling it first' in raised.message
    assert "ollama pull qwen3:4b" in raised.message
    assert "SIGNOFF_OPENAI_BASE_URL" in raised.message


async def test_rate_limit_retries_after_the_servers_delay(
    api: FakeChatApi, model: OpenAIModel
) -> None:
    api.enqueue(429, error("slow down", "rate_limit_exceeded"), headers={"retry-after": "7"})
    raised = await failure(model)
    assert (raised.type, raised.non_retryable) == ("ModelRateLimited", False)
    assert raised.next_retry_delay == timedelta(seconds=7)
    assert len(api.requests) == 1


async def test_retry_after_ms_is_read_first(api: FakeChatApi, model: OpenAIModel) -> None:
    headers = {"retry-after-ms": "1500", "retry-after": "9"}
    api.enqueue(429, error("slow down", "rate_limit_exceeded"), headers=headers)
    raised = await failure(model)
    assert raised.next_retry_delay == timedelta(seconds=1.5)


async def test_a_spent_quota_is_not_a_rate_limit(api: FakeChatApi, model: OpenAIModel) -> None:
    api.enqueue(
        429, error("You exceeded your current quota.", "insufficient_quota", "insufficient_quota")
    )
    raised = await failure(model)
    assert (raised.type, raised.non_retryable) == ("ModelPermissionDenied", True)
    assert "quota is spent" in raised.message


@pytest.mark.parametrize("status", [500, 502, 503, 408, 409])
async def test_server_trouble_is_retryable(
    api: FakeChatApi, model: OpenAIModel, status: int
) -> None:
    api.enqueue(status, error("busy", "server_error"))
    raised = await failure(model)
    assert (raised.type, raised.non_retryable) == ("ModelUnavailable", False)
    assert f"HTTP {status}" in raised.message
    assert raised.next_retry_delay is None


async def test_timeout_is_retryable(api: FakeChatApi) -> None:
    from activities.models.openai_adapter import OpenAIModel

    api.enqueue(200, completion(assistant("late"), "stop"), delay_seconds=2)
    impatient = OpenAIModel(api_key=None, base_url=api.base_url, timeout_seconds=0.2)
    try:
        raised = await failure(impatient)
    finally:
        await impatient.close()
    assert (raised.type, raised.non_retryable) == ("ModelUnavailable", False)
    assert "did not answer within 0.2 seconds" in raised.message


async def test_unreachable_server_is_retryable_and_named(api: FakeChatApi) -> None:
    from activities.models.openai_adapter import OpenAIModel

    address = api.base_url
    api.server.shutdown()
    api.server.server_close()
    unreachable = OpenAIModel(api_key=None, base_url=address, timeout_seconds=1)
    try:
        raised = await failure(unreachable)
    finally:
        await unreachable.close()
    assert (raised.type, raised.non_retryable) == ("ModelUnavailable", False)
    assert f"could not connect to the model server at {address}" in raised.message
    assert "SIGNOFF_OPENAI_BASE_URL" in raised.message


async def test_a_credential_in_the_base_url_is_not_shown(api: FakeChatApi) -> None:
    from activities.models.openai_adapter import OpenAIModel

    # Messages land in the run's history: a URL's user and password stay out.
    api.enqueue(401, error("no"))
    secret_url = api.base_url.replace("http://", "http://user:pa55@")
    model = OpenAIModel(api_key=None, base_url=secret_url, timeout_seconds=5)
    try:
        raised = await failure(model)
    finally:
        await model.close()
    assert raised.type == "ModelAuthenticationFailed"
    assert "pa55" not in raised.message
    assert api.base_url in raised.message
