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

from activities.models import retry_hints
from activities.models.openai_reply import reply_from
from activities.models.openai_wire import call_ids, request_params
from workflows.contracts import ModelReply, ModelRequest

# Sent when no key is set: Ollama, vLLM and llama.cpp ignore it unless told otherwise.
NO_KEY_PLACEHOLDER = "no-key"
KEY_SETTING = "SIGNOFF_OPENAI_API_KEY (or OPENAI_API_KEY)"
URL_SETTING = "SIGNOFF_OPENAI_BASE_URL"
# Statuses that may pass if we wait, besides 429 and 5xx: timeout and conflict.
RETRYABLE_STATUSES = frozenset({408, 409})


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


def fatal(message: str, error_type: str) -> ApplicationError:
    return ApplicationError(message, type=error_type, non_retryable=True)


def api_error(
    error: openai.APIError, model_id: str, server: str, timeout_seconds: float
) -> ApplicationError:
    """One ApplicationError per failure class; retryable only when waiting can help."""
    if isinstance(error, openai.AuthenticationError):
        return fatal(
            f"authentication failed: the model server at {server} refused the API key. "
            f"Set {KEY_SETTING} on the worker.",
            "ModelAuthenticationFailed",
        )
    if isinstance(error, openai.PermissionDeniedError):
        return fatal(
            f"permission denied: the API key may not use model '{model_id}' "
            f"({api_detail(error)}). Check {KEY_SETTING}, or --model.",
            "ModelPermissionDenied",
        )
    if isinstance(error, openai.NotFoundError):
        return fatal(
            f"model '{model_id}' was not found at {server} ({api_detail(error)}); check "
            f"--model (on Ollama: `ollama pull {model_id}`) and {URL_SETTING}, which "
            "usually ends in /v1.",
            "ModelNotFound",
        )
    if isinstance(error, openai.RateLimitError):
        if error.code == "insufficient_quota":
            return fatal(
                f"the API key's quota is spent ({api_detail(error)}). Check the account "
                f"behind {KEY_SETTING}.",
                "ModelPermissionDenied",
            )
        return retryable("the model server's rate limit was reached", "ModelRateLimited", error)
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        if status >= 500 or status in RETRYABLE_STATUSES:
            return retryable(
                f"the model server failed with HTTP {status}", "ModelUnavailable", error
            )
        # 400, 413, 422 and the like: the same request is refused the same way again.
        return fatal(
            f"the model server rejected the request (HTTP {status}): {api_detail(error)}",
            "ModelBadRequest",
        )
    if isinstance(error, openai.APITimeoutError):
        return ApplicationError(
            f"the model server at {server} did not answer within {timeout_seconds:g} seconds",
            type="ModelUnavailable",
        )
    if isinstance(error, openai.APIConnectionError):
        return ApplicationError(
            f"could not connect to the model server at {server}: is it running? "
            f"Check {URL_SETTING}.",
            type="ModelUnavailable",
        )
    return ApplicationError(
        f"the model server call failed ({type(error).__name__})", type="ModelUnavailable"
    )


def api_detail(error: openai.APIStatusError) -> str:
    # The server's own message names what is wrong (a model to pull, a field) and holds
    # no secret. The SDK keeps the `error` object of the body, or the whole body.
    body = error.body
    if isinstance(body, dict):
        detail = body.get("message")
        if isinstance(detail, str) and detail.strip():
            return detail.strip()
    return f"HTTP {error.status_code}"


def retryable(message: str, error_type: str, error: openai.APIStatusError) -> ApplicationError:
    return retry_hints.retryable(message, error_type, error.response.headers, "the server")
