"""A model API's failure as the one ApplicationError Temporal should see, for both
adapters: retryable only when waiting can help, with the API's own retry hint.

Anthropic's and OpenAI's SDKs raise the same shapes (a status error with its HTTP
code and body, a timeout, a connection error), so the classes are judged here once,
by status: 401 the key, 402/403 permission, 404 the model, 429 the rate limit (or, on
OpenAI, a spent quota: waiting does not help), 529 overload, 408/409/5xx the server;
any other status is a request the API will refuse the same way again. Each adapter
gives its own words (`ApiWords`): what to check differs between a hosted API and a
model server of one's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from temporalio.exceptions import ApplicationError

from activities.models.retry_hints import retryable

RETRYABLE_STATUSES = frozenset({408, 409})
OVERLOADED = 529


@dataclass(frozen=True)
class ApiWords:
    """One adapter's sentences; `{model}`, `{detail}`, `{status}`, `{seconds}` and
    `{kind}` are filled in."""

    authentication: str
    permission: str
    not_found: str
    rate_limited: str
    overloaded: str
    failed_status: str
    rejected: str
    timeout: str
    connection: str
    call_failed: str
    asker: str  # who asked to wait: "the API", "the server"
    quota_spent: str | None = None  # a 429 whose code is `insufficient_quota`


def fatal(message: str, error_type: str) -> ApplicationError:
    return ApplicationError(message, type=error_type, non_retryable=True)


def status_error(
    status: int,
    headers: Mapping[str, str],
    words: ApiWords,
    model_id: str,
    detail: str,
    code: str | None = None,
) -> ApplicationError:
    """The error for an HTTP status the API answered with (its headers may hint when to
    retry; `code` is the body's error code, where the API gives one)."""
    fill = {"model": model_id, "detail": detail, "status": status}

    def waiting(sentence: str, error_type: str) -> ApplicationError:
        return retryable(sentence.format(**fill), error_type, headers, words.asker)

    if status == 401:
        return fatal(words.authentication.format(**fill), "ModelAuthenticationFailed")
    if status in (402, 403):
        return fatal(words.permission.format(**fill), "ModelPermissionDenied")
    if status == 404:
        return fatal(words.not_found.format(**fill), "ModelNotFound")
    if status == 429:
        if code == "insufficient_quota" and words.quota_spent is not None:
            return fatal(words.quota_spent.format(**fill), "ModelPermissionDenied")
        return waiting(words.rate_limited, "ModelRateLimited")
    if status == OVERLOADED:
        return waiting(words.overloaded, "ModelOverloaded")
    if status >= 500 or status in RETRYABLE_STATUSES:
        return waiting(words.failed_status, "ModelUnavailable")
    # 400, 413, 422 and the like: the same request is refused the same way again.
    return fatal(words.rejected.format(**fill), "ModelBadRequest")


def transport_error(
    kind: str, words: ApiWords, timeout_seconds: float, error_name: str
) -> ApplicationError:
    """The error for a call that got no answer: `kind` is "timeout", "connection" or
    anything else (an unexpected SDK error)."""
    if kind == "timeout":
        message = words.timeout.format(seconds=f"{timeout_seconds:g}")
    elif kind == "connection":
        message = words.connection
    else:
        message = words.call_failed.format(kind=error_name)
    return ApplicationError(message, type="ModelUnavailable")
