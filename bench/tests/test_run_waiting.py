"""bench/runs/samples.py: the order of the sides each round, and its reading of a
history: a run waits for its decision once a timer starts after its action state was
read (the approval's expiry), not before."""

from __future__ import annotations

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

from bench.runs.samples import Kind, turn_order, waits_after

STATE_READ = "read_action_state"


def scheduled(event_id: int, name: str) -> HistoryEvent:
    event = HistoryEvent(event_id=event_id, event_type=EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
    event.activity_task_scheduled_event_attributes.activity_type.name = name
    return event


def completed(event_id: int, scheduled_id: int) -> HistoryEvent:
    event = HistoryEvent(event_id=event_id, event_type=EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)
    event.activity_task_completed_event_attributes.scheduled_event_id = scheduled_id
    return event


def of_type(event_id: int, event_type: int) -> HistoryEvent:
    return HistoryEvent(event_id=event_id, event_type=event_type)  # type: ignore[arg-type]


TIMER = EventType.EVENT_TYPE_TIMER_STARTED


def test_the_deadlines_timer_before_the_state_read_is_not_the_wait() -> None:
    events = [of_type(1, TIMER), scheduled(2, STATE_READ)]
    assert waits_after(events, STATE_READ) is False


def test_a_timer_after_the_state_read_completed_is_the_wait() -> None:
    events = [
        of_type(1, TIMER),
        scheduled(2, STATE_READ),
        completed(3, 2),
        scheduled(4, "hold_pending_refund"),
        completed(5, 4),
        of_type(6, TIMER),
    ]
    assert waits_after(events, STATE_READ) is True


def test_another_activity_completing_does_not_start_the_wait() -> None:
    events = [scheduled(1, "model_turn"), completed(2, 1), of_type(3, TIMER)]
    assert waits_after(events, STATE_READ) is False


def test_a_run_that_closed_first_never_waits() -> None:
    events = [
        scheduled(1, "model_turn"),
        completed(2, 1),
        of_type(3, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED),
    ]
    assert waits_after(events, STATE_READ) is None


def test_each_side_takes_each_place_in_turn() -> None:
    kinds: tuple[Kind, ...] = ("signoff", "raw", "minimal")

    orders = [turn_order(kinds, number) for number in range(3)]

    assert orders == [
        ("signoff", "raw", "minimal"),
        ("raw", "minimal", "signoff"),
        ("minimal", "signoff", "raw"),
    ]
    assert turn_order(("signoff", "raw"), 1) == ("raw", "signoff")
