"""bench/runs/decision_phases.py's reading of a history, and the report's table of it:
which events bound each phase of a decision, from events and times given here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

from bench.runs.decision_phases import (
    EFFECT_TO_ROW,
    PHASES,
    SENT_TO_TASK,
    TASK,
    TASK_TO_ANSWER,
    TASK_TO_EFFECT,
    decision_phases,
)
from bench.runs.report import SideFigures, phases_table

T0 = datetime(2030, 1, 1, tzinfo=UTC)  # any instant: only differences are read
EFFECT = "execute_refund"


def at_ms(ms: float) -> datetime:
    return T0 + timedelta(milliseconds=ms)


def event(event_id: int, event_type: int, ms: float) -> HistoryEvent:
    made = HistoryEvent(event_id=event_id, event_type=event_type)  # type: ignore[arg-type]
    made.event_time.FromDatetime(at_ms(ms))
    return made


def scheduled(event_id: int, name: str, ms: float) -> HistoryEvent:
    made = event(event_id, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, ms)
    made.activity_task_scheduled_event_attributes.activity_type.name = name
    return made


def started(event_id: int, scheduled_id: int, ms: float) -> HistoryEvent:
    made = event(event_id, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, ms)
    made.activity_task_started_event_attributes.scheduled_event_id = scheduled_id
    return made


def a_decision() -> list[HistoryEvent]:
    """An earlier task, then the one that takes the update, another activity scheduled
    before the effect (the raw baseline records the decision first), and the effect."""
    return [
        event(1, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, -500.0),
        event(2, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, -490.0),
        event(3, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, 2.0),
        event(4, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, 3.0),
        event(5, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, 20.0),
        event(6, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, 20.1),
        scheduled(7, "record_decision", 20.2),
        started(8, 7, 21.0),
        scheduled(9, EFFECT, 40.0),
        started(10, 9, 41.0),
    ]


def test_each_phase_is_bounded_by_the_update_s_task_and_the_effect_s_start() -> None:
    phases = decision_phases(a_decision(), EFFECT, at_ms(0.0), at_ms(30.0), at_ms(48.0))

    assert list(phases) == list(PHASES)
    assert phases[SENT_TO_TASK] == pytest.approx(3.0)
    assert phases[TASK] == pytest.approx(17.0)
    assert phases[TASK_TO_ANSWER] == pytest.approx(10.0)
    # The effect's own start, not the first activity after the update.
    assert phases[TASK_TO_EFFECT] == pytest.approx(21.0)
    assert phases[EFFECT_TO_ROW] == pytest.approx(7.0)


def test_a_history_without_an_accepted_update_is_refused() -> None:
    events = [e for e in a_decision() if e.event_id != 6]
    with pytest.raises(ValueError, match="no accepted update"):
        decision_phases(events, EFFECT, at_ms(0.0), at_ms(30.0), at_ms(48.0))


def test_a_history_whose_effect_never_started_is_refused() -> None:
    with pytest.raises(ValueError, match="effect's start"):
        decision_phases(a_decision(), "another_effect", at_ms(0.0), at_ms(30.0), at_ms(48.0))


def side(ms: float) -> SideFigures:
    return SideFigures(decision_phases={phase: [ms, ms + 2.0, ms + 4.0] for phase in PHASES})


def test_the_table_gives_each_phase_s_median_and_signoff_s_extra_milliseconds() -> None:
    lines = phases_table(side(10.0), {"minimal": side(4.0)})

    (task,) = [line for line in lines if line.startswith(f"| {TASK} |")]
    assert task == f"| {TASK} | 12.0 | 6.0 | +6.0 |"
    assert sum(line.startswith("| ") for line in lines) == len(PHASES) + 2  # header, rule


def test_no_table_when_a_side_has_no_phases() -> None:
    assert phases_table(side(10.0), {"minimal": SideFigures()}) == []
