"""A run with a compact history (what `signoff run` starts now) records no version
marker and no memo, one search-attribute upsert per change of state, and leaves its
deadline's timer to the server.

Its input says which code it started on (`RunRequest.history`), so no marker is needed;
the store's read model and audit hold what the memo carried; the status and the hashes
of the actions it waits on go in one upsert. The marked shape (`test_lean_history.py`)
and every recorded history still replay (tests/replay).
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
from tests.workflow.test_lean_history import REFUND, fatal_type_lists, markers, upserts
from workflows.actions import EXECUTE_REFUND_ACTIVITY, HOLD_PENDING_REFUND_ACTIVITY
from workflows.contracts import (
    HISTORY_COMPACT,
    MODEL_TURN_ACTIVITY,
    PENDING_ATTRIBUTE,
    STATUS_ATTRIBUTE,
)


async def test_a_four_eyes_refund_records_one_upsert_per_change_and_no_marker(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded."))
    # 310.00 on C-3107: above the review threshold, two approvals.
    async with gate_run(
        time_skipping_env, model, seeded_engine, ticket_id="T-3107", history=HISTORY_COMPACT
    ) as handle:
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
    # (workflows/fatal_errors.py).
    policies = fatal_type_lists(history)
    assert {MODEL_TURN_ACTIVITY, HOLD_PENDING_REFUND_ACTIVITY, EXECUTE_REFUND_ACTIVITY} <= set(
        policies
    )
    assert all(names == [] for names in policies.values()), policies
    # The hold carries the action once, not its order, hash, amount and expiry beside it.
    (hold,) = scheduled_inputs(history, HOLD_PENDING_REFUND_ACTIVITY)
    assert set(hold) == {"run_id", "tenant_id", "ticket_id", "action"}


def scheduled_inputs(history: WorkflowHistory, activity: str) -> list[dict[str, Any]]:
    """The JSON input of each scheduling of `activity`, in order."""
    return [
        json.loads(event.activity_task_scheduled_event_attributes.input.payloads[0].data)
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == activity
    ]
