"""Which versioning gates the open runs of a cluster still depend on.

A `workflow.patched("id")` gate writes a marker into the history of each run that
passes it, and a run that recorded the marker (or started before it) must find the gate
in the code until it ends. So a gate can be retired, through `deprecate_patch` and then
removal, once no open run holds its marker, nor was started before it. This reads every
open run's history and counts, for each patch id, the runs that hold its marker and
those that do not, with when the oldest of those started; `signoff history gates` prints
it. A run without the marker either started before the gate was deployed (it needs the
old branch) or has not reached the gate yet: once the oldest open run without it started
after the deploy, the gate can become `deprecate_patch`; once no open run holds it, it
can go. Until the first release signoff's workflow code has no gate, and the answer is
"none". A gate no open run holds yet is asked for by id (`asked`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

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
class GateRuns:
    """One patch id's open runs: those whose history holds its marker, and the others."""

    holding: tuple[str, ...] = ()
    without: tuple[str, ...] = ()
    oldest_without: datetime | None = None  # when the oldest run without it started

    def as_json(self) -> dict[str, object]:
        oldest = self.oldest_without.isoformat() if self.oldest_without else None
        return {
            "runs": len(self.holding),
            "run_ids": self.holding,
            "without": {"runs": len(self.without), "run_ids": self.without, "oldest_start": oldest},
        }


@dataclass(frozen=True)
class GateReport:
    runs: int = 0  # open runs read
    gates: Mapping[str, GateRuns] = field(default_factory=dict)
    unread: tuple[str, ...] = ()  # "RUN: why", runs gone meanwhile

    def as_json(self) -> dict[str, object]:
        return {
            "open_runs": self.runs,
            "gates": {patch: runs.as_json() for patch, runs in sorted(self.gates.items())},
            "unread": self.unread,
        }


@dataclass(frozen=True)
class OpenRun:
    run_id: str
    started: datetime | None
    patches: frozenset[str]


def gate_runs(open_runs: Sequence[OpenRun], asked: Sequence[str] = ()) -> dict[str, GateRuns]:
    """For every patch id an open run holds, and every id `asked` for: who holds it, who
    does not, and when the oldest of those started."""
    ids = {patch for run in open_runs for patch in run.patches} | set(asked)
    report: dict[str, GateRuns] = {}
    for patch in ids:
        holding = tuple(run.run_id for run in open_runs if patch in run.patches)
        without = [run for run in open_runs if patch not in run.patches]
        starts = [run.started for run in without if run.started is not None]
        report[patch] = GateRuns(
            holding, tuple(run.run_id for run in without), min(starts, default=None)
        )
    return report


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
    asked: Sequence[str] = (),
) -> GateReport:
    """Every open run (of `tenant_id`, when given) and the patch ids its history holds,
    by patch id (`gate_runs`); QueryRejected or TemporalRefused
    (signoff/service/history_export.py)."""
    client = client_of(runs)
    open_runs: list[OpenRun] = []
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
            patches = frozenset(patch_ids(history.events))
            open_runs.append(OpenRun(execution.id, execution.start_time, patches))
            progress(len(open_runs))
    except RPCError as error:
        raise temporal_refusal(error) from None
    return GateReport(len(open_runs), gate_runs(open_runs, asked), tuple(unread))
