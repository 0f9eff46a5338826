"""What is provable after a run: its outcome and state, its history, and the store.

The invariants judge these, never what the runner believes happened: the activity
inputs in the history are what the workflow actually asked of the model, the tools and
the ledger; the ledger and the decision audit are what the store holds.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

from activities.store.eval_fixtures import AuditLine, LedgerLine, audit_of, ledger_of
from workflows.action_hold import full_hold
from workflows.actions import (
    EXECUTE_REFUND_ACTIVITY,
    HOLD_PENDING_REFUND_ACTIVITY,
    READ_ACTION_STATE_ACTIVITY,
    ActionHold,
    ActionStateRequest,
    PendingRefundHold,
    RefundCommand,
)
from workflows.agent_run import AgentRun
from workflows.contracts import (
    MODEL_TURN_ACTIVITY,
    RUN_TOOL_ACTIVITY,
    ModelRequest,
    RunOutcome,
    RunState,
    ToolCallInput,
)

# The marker Temporal's core SDK records for each local activity.
LOCAL_ACTIVITY_MARKER = "core_local_activity"
# The activity inputs the invariants read, by activity name.
INPUT_TYPES: dict[str, type[Any]] = {
    MODEL_TURN_ACTIVITY: ModelRequest,
    RUN_TOOL_ACTIVITY: ToolCallInput,
    EXECUTE_REFUND_ACTIVITY: RefundCommand,
    READ_ACTION_STATE_ACTIVITY: ActionStateRequest,
    HOLD_PENDING_REFUND_ACTIVITY: ActionHold,
}


@dataclass
class History:
    """The inputs of the activities the run scheduled (retries are one schedule)."""

    model_requests: list[ModelRequest] = field(default_factory=list)
    tool_calls: list[ToolCallInput] = field(default_factory=list)
    refund_commands: list[RefundCommand] = field(default_factory=list)
    state_reads: list[ActionStateRequest] = field(default_factory=list)
    holds: list[PendingRefundHold] = field(default_factory=list)
    # Holds run as local activities (workflows/gate_store.py): their markers keep no
    # input, so only their number is known; which actions were held, the run's decision
    # trail says (money_invariants.py).
    local_holds: int = 0
    # The attempt on which each refund command's activity last started (1: no retry).
    refund_attempts: list[int] = field(default_factory=list)

    def add(self, value: Any) -> None:
        if isinstance(value, ModelRequest):
            self.model_requests.append(value)
        elif isinstance(value, ToolCallInput):
            self.tool_calls.append(value)
        elif isinstance(value, RefundCommand):
            self.refund_commands.append(value)
        elif isinstance(value, ActionStateRequest):
            self.state_reads.append(value)
        elif isinstance(value, ActionHold):
            self.holds.append(full_hold(value))


@dataclass(frozen=True)
class Trajectory:
    run_id: str
    outcome: RunOutcome
    state: RunState
    history: History
    ledger: list[LedgerLine]
    audit: list[AuditLine]


async def read_history(client: Client, run_id: str) -> History:
    history = History()
    refunds: set[int] = set()  # event ids of scheduled refund commands
    handle = client.get_workflow_handle(run_id)
    async for event in handle.fetch_history_events():
        if event.HasField("marker_recorded_event_attributes"):
            if await _local_activity_type(client, event) == HOLD_PENDING_REFUND_ACTIVITY:
                history.local_holds += 1
            continue
        if event.HasField("activity_task_started_event_attributes"):
            started = event.activity_task_started_event_attributes
            if started.scheduled_event_id in refunds:
                history.refund_attempts.append(started.attempt)
            continue
        if not event.HasField("activity_task_scheduled_event_attributes"):
            continue
        scheduled = event.activity_task_scheduled_event_attributes
        wanted = INPUT_TYPES.get(scheduled.activity_type.name)
        if wanted is None or not scheduled.input.payloads:
            continue
        [value] = await client.data_converter.decode(scheduled.input.payloads, [wanted])
        history.add(value)
        if isinstance(value, RefundCommand):
            refunds.add(event.event_id)
    return history


async def _local_activity_type(client: Client, event: HistoryEvent) -> str | None:
    """The activity type a local activity's marker names (its `data` detail)."""
    marker = event.marker_recorded_event_attributes
    if marker.marker_name != LOCAL_ACTIVITY_MARKER or "data" not in marker.details:
        return None
    [data] = await client.data_converter.decode(marker.details["data"].payloads, [dict])
    activity_type = data.get("activity_type") if isinstance(data, dict) else None
    return activity_type if isinstance(activity_type, str) else None


async def read_trajectory(
    client: Client, engine: Engine, run_id: str, tenant_ids: list[str]
) -> Trajectory:
    handle = client.get_workflow_handle_for(AgentRun.run, run_id)
    outcome: RunOutcome = await handle.result()
    state: RunState = await handle.query(AgentRun.state)
    history = await read_history(client, run_id)
    ledger = await asyncio.to_thread(ledger_of, engine, tenant_ids)
    audit = await asyncio.to_thread(audit_of, engine, tenant_ids)
    return Trajectory(run_id, outcome, state, history, ledger, audit)
