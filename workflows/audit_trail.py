"""The run's decision trail, written record by record to the store's audit table.

Design note. The gate appends `DecisionRecord`s to its trail; `TrailRecorder.flush`
writes the ones not yet written, in order, through the `record_decision` activity.
A record's index in the trail is its sequence number: with the run id it names the
event, so an activity retry, or a flush repeated after a cancelled one, never writes
it twice. The gate flushes at each point where it appends (a decision while it waits,
expiry, void, denial, cancellation) and the run once more at its end, so a record
added anywhere else (a refused attempt, say) reaches the store too.

An effect that writes the records itself (the refund: `activities/store/effect_trail.py`)
takes them from `unwritten` and the gate marks them `written` when it says so: an
approval then reaches its audit row and its effect in one activity.

An edit's approval counts toward the edited action, whose required approvals the gate
knows only once it holds that action (a refund's exposure may ask for four eyes). A
reviewer's edit that arrives while the waiter's flush is writing an earlier record (a
first approval, say) would otherwise be written by that same flush, before the hold,
as `approved` where it is the first of two: the waiter's flush leaves it (`held_back`)
until the edited action waits, and wakes to write it then. Every other flush writes
everything, so that nothing is left unwritten when the gate or the run ends otherwise.

If the store stays down through every retry, the run goes on (the decision is in its
history); the record is tried again at the next flush. The store's audit activity says
itself which of its errors are final (non-retryable): a retry policy that named them
again would repeat them in every scheduling event of the history.

This is workflow code: no I/O; the activity does the writing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from workflows.actions import (
        RECORD_DECISION_ACTIVITY,
        Decision,
        DecisionEvent,
        DecisionRecord,
    )
    from workflows.cancellation import reraise_cancellation
    from workflows.contracts import RunRequest
    from workflows.waiting_action import WaitingAction

RECORD_CALL_TIMEOUT = timedelta(seconds=30)
RECORD_CALL_ATTEMPTS = 10


@dataclass
class TrailRecorder:
    request: RunRequest
    # The gate's own list: the recorder reads it, never changes it.
    trail: list[DecisionRecord]
    # The gate's records of its actions (`waiting_action.py`), read likewise: how many
    # approvals each needs (to tell a first approval of two apart), where they count
    # from, and its mode and pending time (for the worker's metrics and spans).
    actions: Mapping[str, WaitingAction]
    # The signed decision behind each reviewer's record, by its index in the trail.
    signed: dict[int, Decision] = field(default_factory=dict)
    recorded: int = 0  # trail[:recorded] is in the store
    attempted: int = 0  # trail[:attempted] was tried; a new record wakes the waiter
    # The trail index of an edit's approval the waiter's flush left until the edited
    # action is held (module note); None when it left none.
    held_back: int | None = None

    @property
    def behind(self) -> bool:
        """A record arrived since the last flush, or one held back can be written."""
        held = self.held_back
        return len(self.trail) > self.attempted or (held is not None and self._judged(held))

    async def wait(self, resolved: Callable[[], bool], expires_at: datetime) -> None:
        """Wait until `resolved()` or expiry (TimeoutError), writing each record to the
        audit as it arrives: a first approval of two is in the audit at once.

        One expiry timer for the whole wait: a first approval wakes the waiter without
        restarting the timer, which is cancelled only when a decision ends the wait; a
        run that ends while it waits leaves it to the server."""
        timeout = (expires_at - workflow.now()).total_seconds()
        if not resolved() and timeout <= 0:
            raise TimeoutError()
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True

        timer = asyncio.get_running_loop().call_later(max(timeout, 0), expire)
        while True:
            await workflow.wait_condition(lambda: resolved() or expired or self.behind)
            if resolved():
                timer.cancel()
                return
            if expired:
                raise TimeoutError()
            await self.flush(judged_only=True)

    async def flush(self, *, judged_only: bool = False) -> None:
        """Write every record not yet in the store, oldest first; `judged_only` (the
        waiter's) stops before an edit's approval whose action is not held yet."""
        # Marked tried before any early return: a waiter woken by `behind` must find it
        # false after a flush (even when a concurrent flush, or this one's loop, wrote
        # the records), or it wakes again at once and the workflow task spins.
        self.attempted = len(self.trail)
        self.held_back = None
        if self.recorded >= len(self.trail):
            return
        while self.recorded < len(self.trail):
            index = self.recorded
            if judged_only and not self._judged(index):
                self.held_back = index  # `behind` wakes the waiter once it is held
                self.attempted = len(self.trail)  # what arrived meanwhile waits with it
                return
            try:
                await workflow.execute_activity(
                    RECORD_DECISION_ACTIVITY,
                    self._event(index),
                    result_type=int,
                    start_to_close_timeout=RECORD_CALL_TIMEOUT,
                    retry_policy=RetryPolicy(maximum_attempts=RECORD_CALL_ATTEMPTS),
                )
            except ActivityError as error:
                reraise_cancellation(error)
                workflow.logger.warning("decision %d not in the audit yet: %s", index, error)
                return
            # An effect may have written past this record meanwhile (`written`).
            self.recorded = max(self.recorded, index + 1)
        # Records that arrived while one was written were written by this loop too.
        self.attempted = len(self.trail)

    def unwritten(self) -> tuple[int, list[DecisionEvent]]:
        """The records not yet in the store, for an effect that writes them itself, and
        the trail's length they reach (`written` takes it back once they are in)."""
        end = len(self.trail)
        return end, [self._event(index) for index in range(self.recorded, end)]

    def written(self, end: int) -> None:
        """trail[:end] is in the store: an effect wrote it in its own transaction."""
        self.recorded = max(self.recorded, end)
        self.attempted = max(self.attempted, end)

    def _judged(self, index: int) -> bool:
        """The record can be written as what it is: not an approval of an action the
        gate tracks but has not held yet (an edit's, made by its decision)."""
        record = self.trail[index]
        action = self.actions.get(record.action_hash)
        return record.kind != "approved" or action is None or action.waited is not None

    def _event(self, index: int) -> DecisionEvent:
        record = self.trail[index]
        number: int | None = None
        required: int | None = None
        action = self.actions.get(record.action_hash)
        if record.kind == "approved":
            start = 0 if action is None else action.approvals_from
            number = sum(
                1
                for earlier in self.trail[start : index + 1]
                if earlier.kind == "approved" and earlier.action_hash == record.action_hash
            )
            required = None if action is None else action.required
        waited = None if action is None else action.waited
        mode, requested_at = (None, None) if waited is None else waited
        return DecisionEvent(
            run_id=workflow.info().workflow_id,
            tenant_id=self.request.tenant_id,
            ticket_id=self.request.ticket_id,
            sequence=index,
            record=record,
            approval_number=number,
            approvals_required=required,
            mode=mode,
            requested_at=requested_at,
            proof=self.signed.get(index),
        )
