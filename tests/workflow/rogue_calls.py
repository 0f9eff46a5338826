"""A workflow of someone else's that calls signoff's activities by name with payloads it
writes itself, as plain JSON: the shapes an activity once took, or names it never gave.
It runs on a task queue of its own, as anyone who reaches the Temporal frontend could."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

# Two attempts: a refusal Temporal may retry (a profile another worker may hold) shows
# as that refusal, and the test does not wait out a long retry policy.
ATTEMPTS = RetryPolicy(maximum_attempts=2, initial_interval=timedelta(seconds=1))
TIMEOUT = timedelta(seconds=30)


@workflow.defn(name="RogueCalls")
class RogueCalls:
    """Each call is `[activity name, payload]`; each answer `"NAME: answered JSON"` or
    `"NAME: failed TYPE"`."""

    @workflow.run
    async def run(self, queue: str, calls: list[list[Any]]) -> list[str]:
        said: list[str] = []
        for name, payload in calls:
            try:
                answer = await workflow.execute_activity(
                    name,
                    payload,
                    task_queue=queue,
                    start_to_close_timeout=TIMEOUT,
                    retry_policy=ATTEMPTS,
                )
                said.append(f"{name}: answered {json.dumps(answer, sort_keys=True)}")
            except ActivityError as error:
                cause = error.cause
                kind = cause.type if isinstance(cause, ApplicationError) else type(cause).__name__
                said.append(f"{name}: failed {kind}")
        return said
