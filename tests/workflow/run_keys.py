"""The decision keys a test run gets from its `run_limits` local activity.

`signoff worker` hands its public decision keys to every run at its start
(activities/run_limits.py), and the `decide` validator checks signatures with them
(workflows/decision_keyring.py). A test that replaces `run_limits` with limits of its
own wraps them here, so that its runs check decisions as production runs do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from temporalio import activity

from activities.run_limits import decision_keys
from signoff.config.decision_signatures import VerificationKeys
from workflows.run_limits import RUN_LIMITS_ACTIVITY, RunLimits, RunLimitsRequest


def keyed_limits(
    run_limits: Callable[[RunLimitsRequest], Awaitable[RunLimits]],
    keys: VerificationKeys,
    max_age: timedelta,
) -> Callable[..., Any]:
    """`run_limits` answering with `keys` and `max_age` beside its limits."""

    @activity.defn(name=RUN_LIMITS_ACTIVITY)
    async def run_limits_with_keys(request: RunLimitsRequest) -> RunLimits:
        limits = await run_limits(request)
        return limits.model_copy(
            update={
                "decision_keys": decision_keys(keys),
                "decision_max_age_seconds": max_age.total_seconds(),
            }
        )

    return run_limits_with_keys
