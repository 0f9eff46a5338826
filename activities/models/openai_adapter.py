"""Any Chat Completions server behind the neutral ModelAdapter interface.

Ollama, vLLM, llama.cpp's server and OpenAI itself, through the official `openai` SDK.
This module imports the SDK; the worker imports this module only on its first
`openai:` turn (activities/model_turn.py), so a worker that never runs one never loads
it. The mapping is in openai_wire.py (request) and openai_reply.py (reply).

Design notes:

- `max_retries=0`: Temporal owns retries, so every attempt is an activity attempt that
  the history shows. The base URL is `SIGNOFF_OPENAI_BASE_URL`, else the SDK's default.
  A local server needs no key; the SDK refuses to start without one, so a placeholder
  is sent instead.
- Errors follow the Anthropic adapter's table, by the SDK's exception classes: a
  refused key (401), a forbidden model (403), an unknown model or endpoint (404) and
  any other 4xx are non-retryable, each naming the setting to fix; 429, 408, 409, 5xx,
  timeouts and lost connections are retryable, after the server's `retry-after` when it
  sends one. A 429 that says the quota is spent (`insufficient_quota`) is not a rate
  limit: waiting does not refill it.
- The base URL shown in messages has no user, password or query: a URL may carry a
  credential, and messages end up in the run's history.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import openai
from temporalio.exceptions import ApplicationError

from activities.models.api_errors import ApiWords, status_error, transport_error
from activities.models.openai_reply import reply_from
from activities.models.openai_wire import call_ids, request_params
from signoff.config.settings import Settings
from workflows.contracts import ModelReply, ModelRequest

# Sent when no key is set: Ollama, vLLM and llama.cpp ignore it unless told otherwise.
NO_KEY_PLACEHOLDER = "no-key"
KEY_SETTING = "SIGNOFF_OPENAI_API_KEY (or OPENAI_API_KEY)"
URL_SETTING = "SIGNOFF_OPENAI_BASE_URL"


class OpenAIModel:
    def __init__(
        self, api_key: str | None, timeout_seconds: float, base_url: str | None = None
    ) -> None:
        options: dict[str, Any] = {"base_url": base_url} if base_url else {}
        self._client = openai.AsyncOpenAI(
            api_key=api_key or NO_KEY_PLACEHOLDER,
            max_retries=0,
            timeout=timeout_seconds,
            **options,
        )
        self._timeout_seconds = timeout_seconds

    @property
    def server(self) -> str:
        return shown_url(str(self._client.base_url))

    async def complete(self, request: ModelRequest) -> ModelReply:
        params = request_params(request)
        try:
            completion = await self._client.chat.completions.create(**params)
        except openai.APIError as error:
            raise api_error(
                error, request.model.model_id, self.server, self._timeout_seconds
            ) from None
        return reply_from(completion, call_ids(request))

    async def close(self) -> None:
        await self._client.close()


def shown_url(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}".rstrip("/")


# --- errors -------------------------------------------------------------------------


def words_for(server: str) -> ApiWords:
    return ApiWords(
        authentication=(
            f"authentication failed: the model server at {server} refused the API key. "
            f"Set {KEY_SETTING} on the worker."
        ),
        permission=(
            "permission denied: the API key may not use model '{model}' ({detail}). "
            f"Check {KEY_SETTING}, or --model."
        ),
        not_found=(
            f"model '{{model}}' was not found at {server} ({{detail}}); check --model (on "
            f"Ollama: `ollama pull {{model}}`) and {URL_SETTING}, which usually ends in /v1."
        ),
        quota_spent=(
            f"the API key's quota is spent ({{detail}}). Check the account behind {KEY_SETTING}."
        ),
        rate_limited="the model server's rate limit was reached",
        overloaded="the model server is overloaded",
        failed_status="the model server failed with HTTP {status}",
        rejected="the model server rejected the request (HTTP {status}): {detail}",
        timeout=f"the model server at {server} did not answer within {{seconds}} seconds",
        connection=(
            f"could not connect to the model server at {server}: is it running? "
            f"Check {URL_SETTING}."
        ),
        call_failed="the model server call failed ({kind})",
        asker="the server",
    )


def api_error(
    error: openai.APIError, model_id: str, server: str, timeout_seconds: float
) -> ApplicationError:
    """One ApplicationError per failure class (api_errors.py)."""
    words = words_for(server)
    if isinstance(error, openai.APIStatusError):
        return status_error(
            error.status_code,
            error.response.headers,
            words,
            model_id,
            api_detail(error),
            code=error.code,
        )
    kind = (
        "timeout"
        if isinstance(error, openai.APITimeoutError)
        else "connection"
        if isinstance(error, openai.APIConnectionError)
        else "other"
    )
    return transport_error(kind, words, timeout_seconds, type(error).__name__)


def api_detail(error: openai.APIStatusError) -> str:
    # The server's own message names what is wrong (a model to pull, a field) and holds
    # no secret. The SDK keeps the `error` object of the body, or the whole body.
    body = error.body
    if isinstance(body, dict):
        detail = body.get("message")
        if isinstance(detail, str) and detail.strip():
            return detail.strip()
    return f"HTTP {error.status_code}"


def from_settings(settings: Settings) -> OpenAIModel:
    """The adapter of the `openai` provider (signoff/models/openai_provider.py), built by
    the worker on the first turn that names it; the key (none for a local server) is
    read here, in the worker, like the Anthropic key."""
    key = settings.openai_api_key
    return OpenAIModel(
        api_key=key.get_secret_value() if key is not None else None,
        timeout_seconds=settings.openai_timeout_seconds,
        base_url=settings.openai_base_url,
    )
