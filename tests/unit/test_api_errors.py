"""One mapping of a model API's failures for both adapters (activities/models/
api_errors.py): each status class gets its error type, retryable only when waiting can
help, in the adapter's own words."""

from __future__ import annotations

from datetime import timedelta

import pytest

from activities.models.api_errors import ApiWords, status_error, transport_error


# Each adapter's words, from the adapter: imported by the tests, not when the module is
# collected (every test process collects every module; the two SDKs are 2.5 s of CPU).
@pytest.fixture(scope="module")
def anthropic() -> ApiWords:
    from activities.models.anthropic_adapter import WORDS

    return WORDS


@pytest.fixture(scope="module")
def openai() -> ApiWords:
    from activities.models.openai_adapter import words_for

    return words_for("http://127.0.0.1:11434/v1")


@pytest.mark.parametrize(
    ("status", "error_type", "retryable"),
    [
        (401, "ModelAuthenticationFailed", False),
        (402, "ModelPermissionDenied", False),
        (403, "ModelPermissionDenied", False),
        (404, "ModelNotFound", False),
        (408, "ModelUnavailable", True),
        (409, "ModelUnavailable", True),
        (422, "ModelBadRequest", False),
        (429, "ModelRateLimited", True),
        (500, "ModelUnavailable", True),
        (529, "ModelOverloaded", True),
    ],
)
def test_each_status_is_one_class_for_both_adapters(
    anthropic: ApiWords, openai: ApiWords, status: int, error_type: str, retryable: bool
) -> None:
    for words in (anthropic, openai):
        error = status_error(status, {}, words, "m-1", "the detail")
        assert (error.type, error.non_retryable) == (error_type, not retryable)
        assert "{" not in error.message  # every placeholder filled


def test_a_spent_quota_is_not_a_rate_limit_and_a_hint_is_kept(
    anthropic: ApiWords, openai: ApiWords
) -> None:
    spent = status_error(429, {}, openai, "m-1", "billing", code="insufficient_quota")
    assert spent.non_retryable and "quota is spent (billing)" in spent.message
    hinted = status_error(429, {"retry-after": "7"}, anthropic, "m-1", "slow down")
    assert hinted.next_retry_delay == timedelta(seconds=7)
    assert "the API asked to retry after 7 seconds" in hinted.message
    assert "`ollama pull m-1`" in status_error(404, {}, openai, "m-1", "no model").message


def test_no_answer_is_retryable_and_says_where(anthropic: ApiWords, openai: ApiWords) -> None:
    timed_out = transport_error("timeout", openai, 2.5, "APITimeoutError")
    assert not timed_out.non_retryable and "within 2.5 seconds" in timed_out.message
    assert (
        "127.0.0.1:11434" in transport_error("connection", openai, 1, "APIConnectionError").message
    )
    assert "(Boom)" in transport_error("other", anthropic, 1, "Boom").message
