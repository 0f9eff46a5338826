"""One mapping of a model API's failures for both adapters (activities/models/
api_errors.py): each status class gets its error type, retryable only when waiting can
help, in the adapter's own words."""

from __future__ import annotations

from datetime import timedelta

import pytest

from activities.models.anthropic_adapter import WORDS as ANTHROPIC
from activities.models.api_errors import status_error, transport_error
from activities.models.openai_adapter import words_for

OPENAI = words_for("http://127.0.0.1:11434/v1")


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
    status: int, error_type: str, retryable: bool
) -> None:
    for words in (ANTHROPIC, OPENAI):
        error = status_error(status, {}, words, "m-1", "the detail")
        assert (error.type, error.non_retryable) == (error_type, not retryable)
        assert "{" not in error.message  # every placeholder filled


def test_a_spent_quota_is_not_a_rate_limit_and_a_hint_is_kept() -> None:
    spent = status_error(429, {}, OPENAI, "m-1", "billing", code="insufficient_quota")
    assert spent.non_retryable and "quota is spent (billing)" in spent.message
    hinted = status_error(429, {"retry-after": "7"}, ANTHROPIC, "m-1", "slow down")
    assert hinted.next_retry_delay == timedelta(seconds=7)
    assert "the API asked to retry after 7 seconds" in hinted.message
    assert "`ollama pull m-1`" in status_error(404, {}, OPENAI, "m-1", "no model").message


def test_no_answer_is_retryable_and_says_where() -> None:
    timed_out = transport_error("timeout", OPENAI, 2.5, "APITimeoutError")
    assert not timed_out.non_retryable and "within 2.5 seconds" in timed_out.message
    assert (
        "127.0.0.1:11434" in transport_error("connection", OPENAI, 1, "APIConnectionError").message
    )
    assert "(Boom)" in transport_error("other", ANTHROPIC, 1, "Boom").message
