"""A local activity's call, failing as an ordinary activity's does.

An ordinary activity that fails reaches the workflow as an `ActivityError` whose cause
is the activity's error. A local activity's failure may arrive unwrapped (the
activity's `ApplicationError` itself, measured with temporalio 1.35 and a non-retryable
error), and the run's callers recover from `ActivityError` only: one that slipped past
them would fail the whole run. So a local call's failure is wrapped here, with its
error as the cause, and the callers treat both kinds alike.

This is workflow code: the activity does the I/O.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, FailureError


async def local_call(
    activity: str,
    argument: Any,
    *,
    result_type: type[Any],
    timeout: timedelta,
    retry_policy: RetryPolicy,
    schedule_to_close: timedelta | None = None,
) -> Any:
    """`timeout` bounds one attempt; `schedule_to_close`, when given, all of them with
    their backoffs (a call that holds the workflow task must end well inside it)."""
    try:
        return await workflow.execute_local_activity(
            activity,
            argument,
            result_type=result_type,
            start_to_close_timeout=timeout,
            schedule_to_close_timeout=schedule_to_close,
            retry_policy=retry_policy,
        )
    except ActivityError:
        raise
    except FailureError as error:  # unwrapped: see the module note
        raise ActivityError(
            str(error),
            scheduled_event_id=0,
            started_event_id=0,
            identity="",
            activity_type=activity,
            activity_id="",
            retry_state=None,
        ) from error
