"""Which events of a history a workflow's own commands wrote, for locating a divergence."""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.json_format import MessageToJson
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

# Events that exist because the workflow code issued a command (or accepted an update):
# replay compares exactly these against what the code does now.
COMMAND_EVENTS = frozenset(
    {
        EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
        EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED,
        EventType.EVENT_TYPE_TIMER_STARTED,
        EventType.EVENT_TYPE_TIMER_CANCELED,
        EventType.EVENT_TYPE_MARKER_RECORDED,
        EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
        EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED,
        EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
        EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
        EventType.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
    }
)


def task_starts(events: Sequence[HistoryEvent]) -> list[int]:
    """Positions of the events where a workflow task started."""
    return [
        index
        for index, event in enumerate(events)
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED
    ]


def command_events(events: Sequence[HistoryEvent]) -> list[HistoryEvent]:
    return [event for event in events if event.event_type in COMMAND_EVENTS]


def event_named(events: Sequence[HistoryEvent], names: Sequence[str]) -> HistoryEvent | None:
    """The first event that mentions one of `names` (an activity type, a patch id)."""
    for event in events:
        text = _readable(event)
        if any(f'"{name}"' in text for name in names):
            return event
    return None


def _readable(event: HistoryEvent) -> str:
    """The event as JSON, with a marker's payloads (a patch's id) decoded too."""
    text = MessageToJson(event)
    if event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED:
        for detail in event.marker_recorded_event_attributes.details.values():
            for payload in detail.payloads:
                text += payload.data.decode("utf-8", errors="replace")
    return text
