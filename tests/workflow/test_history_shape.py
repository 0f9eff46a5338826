"""What a run records: no version marker, no memo, one search-attribute upsert per
change of state, and the deadline's timer left to the server.

Until the first release a change to workflow code records the affected histories again
(tests/histories/) instead of adding a `workflow.patched` gate, so a run carries no
marker. The store's read model and audit hold what a memo would carry; the status and
the hashes of the actions a run waits on go in one upsert.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from sqlalchemy import Engine
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory
from temporalio.testing import WorkflowEnvironment

from tests.workflow.approvals import decide, decision, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.actions import EXECUTE_REFUND_ACTIVITY, HOLD_PENDING_REFUND_ACTIVITY
from workflows.contracts import MODEL_TURN_ACTIVITY, PENDING_ATTRIBUTE, STATUS_ATTRIBUTE

REFUND = ("refund", {"amount": "310.00", "reason": "The lamp arrived broken."})


def markers(history: WorkflowHistory) -> list[str]:
    """The patch id of each version marker, in order."""
    return [
        json.loads(payload.data)["id"]
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        # A local activity's marker (the hold) is no version marker.
        and "patch-data" in event.marker_recorded_event_attributes.details
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


async def test_a_four_eyes_refund_records_one_upsert_per_change_and_no_marker(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded."))
    # 310.00 on C-3107: above the review threshold, two approvals.
    async with gate_run(time_skipping_env, model, seeded_engine, ticket_id="T-3107") as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        await decide(handle, decision(seeded_engine, "bob", action.action_hash))
        outcome = await handle.result()
    history = await handle.fetch_history()
    await replay(handle)

    assert outcome.status == "completed" and len(outcome.effects_performed) == 1
    assert markers(history) == []
    # Started with status and tenant set right: nothing at the start. Waiting names the
    # action; alice's approval changes neither; the decision and the end, once each.
    assert upserts(history) == [
        {STATUS_ATTRIBUTE: "waiting_for_approval", PENDING_ATTRIBUTE: [action.action_hash]},
        {STATUS_ATTRIBUTE: "running", PENDING_ATTRIBUTE: None},
        {STATUS_ATTRIBUTE: "completed"},
    ]
    kinds = Counter(event.event_type for event in history.events)
    assert kinds[EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED] == 0  # no memo
    # The deadline's timer and the approval's expiry timer start, once each (alice's
    # approval does not restart the expiry); only the expiry one is cancelled, by the
    # decision: the server drops the deadline's timer its run outlived.
    assert kinds[EventType.EVENT_TYPE_TIMER_STARTED] == 2
    assert kinds[EventType.EVENT_TYPE_TIMER_CANCELED] == 1
    assert kinds[EventType.EVENT_TYPE_TIMER_FIRED] == 0
    # No retry policy repeats the fatal error types: each error says it itself
    # (workflows/policy.py).
    policies = fatal_type_lists(history)
    assert {MODEL_TURN_ACTIVITY, EXECUTE_REFUND_ACTIVITY} <= set(policies)
    assert all(names == [] for names in policies.values()), policies
    # The hold is a local activity: no scheduling of its own in the history.
    assert scheduled_inputs(history, HOLD_PENDING_REFUND_ACTIVITY) == []


def scheduled_inputs(history: WorkflowHistory, activity: str) -> list[dict[str, Any]]:
    """The JSON input of each scheduling of `activity`, in order."""
    return [
        json.loads(event.activity_task_scheduled_event_attributes.input.payloads[0].data)
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == activity
    ]
