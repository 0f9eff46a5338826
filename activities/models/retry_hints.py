"""A rate-limited or overloaded model API's hint of when to come back, for both adapters.

Anthropic and OpenAI-compatible servers send `retry-after-ms` or `retry-after` (seconds).
The error handed to Temporal then carries that delay (`next_retry_delay`) instead of
the activity's backoff. An HTTP-date value, or anything else unreadable, is ignored:
Temporal's own backoff applies.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import timedelta

from temporalio.exceptions import ApplicationError


def retry_after(headers: Mapping[str, str]) -> timedelta | None:
    for header, seconds_per_unit in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(header)
        if raw is None:
            continue
        try:
            seconds = float(raw) * seconds_per_unit
        except ValueError:
            continue
        if math.isfinite(seconds) and seconds > 0:
            return timedelta(seconds=seconds)
    return None


def retryable(
    message: str, error_type: str, headers: Mapping[str, str], asker: str
) -> ApplicationError:
    """A retryable error saying, when `asker` (the API, the server) gave one, its delay."""
    delay = retry_after(headers)
    if delay is not None:
        message += f"; {asker} asked to retry after {delay.total_seconds():g} seconds"
    return ApplicationError(message, type=error_type, next_retry_delay=delay)
