"""Which versioning gates the open runs of a cluster still depend on.

A `workflow.patched("id")` gate writes a marker into the history of each run that
passes it, and a run that recorded the marker (or started before it) must find the gate
in the code until it ends. So a gate can be retired, through `deprecate_patch` and then
removal, once no open run holds its marker, nor was started before it. This reads every
open run's history and counts the runs that hold each patch id; `signoff history gates`
prints it. Until the first release signoff's workflow code has no gate, and the answer
is "none"; the count is what the versioning policy asks before a gate goes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.service import RPCError, RPCStatusCode

from signoff.service.handles import Runs, client_of
from signoff.service.history_export import temporal_refusal, tenant_query

# The marker the Python SDK (and every Temporal SDK) writes for a `patched` call.
PATCH_MARKER = "core_patch"
PATCH_DETAILS = "patch-data"
OPEN_RUNS = "ExecutionStatus = 'Running'"


@dataclass(frozen=True)
class GateReport:
    runs: int = 0  # open runs read
    # Patch id -> the open runs whose history holds its marker.
    gates: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    unread: tuple[str, ...] = ()  # "RUN: why", runs gone meanwhile

    def as_json(self) -> dict[str, object]:
        return {
            "open_runs": self.runs,
            "gates": {
                patch: {"runs": len(runs), "run_ids": runs}
                for patch, runs in sorted(self.gates.items())
            },
            "unread": self.unread,
        }


def patch_ids(events: Sequence[HistoryEvent]) -> list[str]:
    """The id of every patch marker in a history, in order."""
    found: list[str] = []
    for event in events:
        if event.event_type != EventType.EVENT_TYPE_MARKER_RECORDED:
            continue
        attributes = event.marker_recorded_event_attributes
        if attributes.marker_name != PATCH_MARKER or PATCH_DETAILS not in attributes.details:
            continue
        for payload in attributes.details[PATCH_DETAILS].payloads:
            try:
                patch = json.loads(payload.data).get("id")
            except (ValueError, AttributeError):
                continue
            if isinstance(patch, str):
                found.append(patch)
    return found


async def open_run_gates(
    runs: Runs,
    tenant_id: str | None = None,
    progress: Callable[[int], None] = lambda read: None,
) -> GateReport:
    """Every open run (of `tenant_id`, when given) and the patch ids its history holds;
    QueryRejected or TemporalRefused (signoff/service/history_export.py)."""
    client = client_of(runs)
    read = 0
    gates: dict[str, list[str]] = {}
    unread: list[str] = []
    try:
        async for execution in client.list_workflows(tenant_query(OPEN_RUNS, tenant_id)):
            handle = client.get_workflow_handle(execution.id, run_id=execution.run_id)
            try:
                history = await handle.fetch_history()
            except RPCError as error:
                if error.status != RPCStatusCode.NOT_FOUND:
                    raise
                unread.append(f"{execution.id}: its history is gone")
                continue
            read += 1
            for patch in dict.fromkeys(patch_ids(history.events)):
                gates.setdefault(patch, []).append(execution.id)
            progress(read)
    except RPCError as error:
        raise temporal_refusal(error) from None
    frozen_gates = {patch: tuple(run_ids) for patch, run_ids in gates.items()}
    return GateReport(read, frozen_gates, tuple(unread))
