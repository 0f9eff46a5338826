"""A run started on today's code pays one version marker and no upsert that changes nothing.

Every gate it passes (four eyes, signed decisions, the audit store, ...) is open under
the one `lean-history` marker; the status attribute is upserted only when it changes,
the memo only when its content does, and nothing at the start when the starter set the
status and tenant right. (That is the marked history a run asks for with
`history=HISTORY_MARKED`; `test_compact_history.py` has the compact one the factory asks
for now.) The old histories, one marker per gate, still replay
(tests/replay); these tests look at a new run's own history.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from sqlalchemy import Engine
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import WorkflowHistory
from temporalio.testing import WorkflowEnvironment

from tests.workflow.approvals import decide, decision, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.actions import EXECUTE_REFUND_ACTIVITY
from workflows.contracts import HISTORY_MARKED, MODEL_TURN_ACTIVITY
from workflows.gate_store import REFUND_FATAL_ERROR_TYPES
from workflows.policy import MODEL_FATAL_ERROR_TYPES
from workflows.run_outcome import STATUS_KEY
from workflows.version_gates import LEAN_HISTORY_PATCH

REFUND = ("refund", {"amount": "310.00", "reason": "The lamp arrived broken."})


def markers(history: WorkflowHistory) -> list[str]:
    """The patch id of each version marker, in order."""
    return [
        json.loads(payload.data)["id"]
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        for payload in event.marker_recorded_event_attributes.details["patch-data"].payloads
    ]


def upserts(history: WorkflowHistory) -> list[dict[str, Any]]:
    """Each search-attribute upsert, as {attribute: value or None when unset}."""
    found = []
    for event in history.events:
        if event.event_type != EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
            continue
        fields = event.upsert_workflow_search_attributes_event_attributes.search_attributes
        found.append(
            {
                name: json.loads(payload.data) if payload.data else None
                for name, payload in fields.indexed_fields.items()
            }
        )
    return found


def status_upserts(history: WorkflowHistory) -> list[str]:
    """The status attribute's value in each upsert that sets it, in order."""
    return [changes[STATUS_KEY.name] for changes in upserts(history) if STATUS_KEY.name in changes]


def memo_upserts(history: WorkflowHistory) -> list[dict[str, Any]]:
    return [
        json.loads(payload.data)
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED
        for payload in memo_fields(event)
    ]


def fatal_type_lists(history: WorkflowHistory) -> dict[str, list[str]]:
    """Each scheduled activity's `non_retryable_error_types`, by activity name (the last
    scheduling of each name wins)."""
    scheduled = (
        event.activity_task_scheduled_event_attributes
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    )
    return {
        attributes.activity_type.name: list(attributes.retry_policy.non_retryable_error_types)
        for attributes in scheduled
    }


def memo_fields(event: HistoryEvent) -> list[Payload]:
    return list(event.workflow_properties_modified_event_attributes.upserted_memo.fields.values())


async def test_a_four_eyes_refund_records_one_marker_and_each_change_once(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded."))
    # 310.00 on C-3107: above the review threshold, two approvals.
    async with gate_run(
        time_skipping_env, model, seeded_engine, ticket_id="T-3107", history=HISTORY_MARKED
    ) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        await decide(handle, decision(seeded_engine, "bob", action.action_hash))
        await handle.result()
    history = await handle.fetch_history()
    await replay(handle)

    assert markers(history) == [LEAN_HISTORY_PATCH]
    # Started with status and tenant set right: no upsert at the start; then each
    # change once, and never the same value twice in a row.
    assert status_upserts(history) == ["waiting_for_approval", "running", "completed"]
    # Its retry policies name the fatal error types (a compact run leaves them to the
    # errors themselves: test_compact_history.py).
    assert fatal_type_lists(history)[MODEL_TURN_ACTIVITY] == list(MODEL_FATAL_ERROR_TYPES)
    assert fatal_type_lists(history)[EXECUTE_REFUND_ACTIVITY] == list(REFUND_FATAL_ERROR_TYPES)
    memos = memo_upserts(history)
    assert all(before != after for before, after in zip(memos, memos[1:], strict=False))
    pending_counts = [len(memo["pending_actions"]) for memo in memos]
    assert pending_counts == [0, 1, 1, 0]  # start, waiting, alice's approval, decided
    kinds = Counter(event.event_type for event in history.events)
    # The marker's own TemporalChangeVersion upsert, by the SDK, and the three above.
    assert kinds[EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES] == 4
