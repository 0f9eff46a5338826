"""Which steps of a run Temporal is retrying, read from the run's description.

The workflow does not see the attempts of its activities (Temporal retries them on the
server, under the retry policy), so the `retrying` status is read here, from the
pending activities Temporal describes: an activity past its first attempt is being
retried, and its last failure says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `signoff status` reads runs without temporalio.client (run_reading.py)
    from temporalio.api.workflowservice.v1 import DescribeWorkflowExecutionResponse


@dataclass(frozen=True)
class Retry:
    activity: str
    attempt: int
    last_failure: str
    next_attempt_at: datetime | None

    def line(self) -> str:
        when = (
            f"; next attempt at {self.next_attempt_at:%H:%M:%S} UTC" if self.next_attempt_at else ""
        )
        why = f"; last failure: {self.last_failure}" if self.last_failure else ""
        return f"{self.activity}, attempt {self.attempt}{why}{when}"


def retries_in(raw_description: DescribeWorkflowExecutionResponse) -> list[Retry]:
    retries = []
    for pending in raw_description.pending_activities:
        if pending.attempt <= 1:
            continue
        failure = pending.last_failure.message if pending.HasField("last_failure") else ""
        next_at = (
            pending.next_attempt_schedule_time.ToDatetime(tzinfo=UTC)
            if pending.HasField("next_attempt_schedule_time")
            else None
        )
        retries.append(Retry(pending.activity_type.name, pending.attempt, failure, next_at))
    return retries
