"""Where a decision's time goes, on each side of `python -m bench.runs`: its phases.

`decide` p50 and decision accepted → refund row are sums; their ratios alone do not say
which part of the path costs what. The phases are read from the run's history, whose
event times the server stamps, and from the bench's own clock around the `decide` call
(the same machine, so the same clock):

- update sent → its workflow task started: the server takes the update and hands the
  run's workflow task to a worker;
- the workflow task (started → completed): the worker's share, the validator, whatever
  the handler waits for (signoff's `verify_decision` local activity) and the commands;
- task completed → `decide` returned: the server records the task's commands (status
  upserts, markers, the effect's schedule) and answers the update;
- task completed → effect started: the effect activity's dispatch;
- effect started → refund row: the effect until the ledger row is inserted (its
  `created_at`; signoff's transaction then spends the approvals, releases the hold and
  appends its `executed` audit row before the commit, the minimal one commits at once).

Decision accepted → refund row is about the last two added; `decide` the first three.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

SENT_TO_TASK = "update sent → its workflow task started"
TASK = "the workflow task that takes the update (started → completed)"
TASK_TO_ANSWER = "task completed → `decide` returned"
TASK_TO_EFFECT = "task completed → effect activity started"
EFFECT_TO_ROW = "effect activity started → refund row"
PHASES = (SENT_TO_TASK, TASK, TASK_TO_ANSWER, TASK_TO_EFFECT, EFFECT_TO_ROW)


def _at(event: HistoryEvent) -> datetime:
    return event.event_time.ToDatetime(tzinfo=UTC)


def _ms(later: datetime, earlier: datetime) -> float:
    return (later - earlier).total_seconds() * 1000


def decision_phases(
    events: Sequence[HistoryEvent],
    effect_name: str,
    sent: datetime,
    returned: datetime,
    refund_row: datetime,
) -> dict[str, float]:
    """The phases, in milliseconds, of the run's one accepted decision, whose effect is
    the activity `effect_name`. Raises ValueError when the history holds no accepted
    update, or no start of that activity after it."""
    accepted = next(
        (
            index
            for index, event in enumerate(events)
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
        ),
        None,
    )
    if accepted is None:
        raise ValueError("the history holds no accepted update")
    before = events[:accepted]
    started = _last(before, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED)
    completed = _last(before, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
    effect = _effect_started(events[accepted:], effect_name)
    if started is None or completed is None or effect is None:
        raise ValueError("the update's workflow task or the effect's start is not in the history")
    return {
        SENT_TO_TASK: _ms(_at(started), sent),
        TASK: _ms(_at(completed), _at(started)),
        TASK_TO_ANSWER: _ms(returned, _at(completed)),
        TASK_TO_EFFECT: _ms(_at(effect), _at(completed)),
        EFFECT_TO_ROW: _ms(refund_row, _at(effect)),
    }


def _effect_started(events: Sequence[HistoryEvent], name: str) -> HistoryEvent | None:
    scheduled = {
        event.event_id
        for event in events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == name
    }
    return next(
        (
            event
            for event in events
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
            and event.activity_task_started_event_attributes.scheduled_event_id in scheduled
        ),
        None,
    )


def _last(events: Sequence[HistoryEvent], event_type: int) -> HistoryEvent | None:
    return next((event for event in reversed(events) if event.event_type == event_type), None)
