"""Following, cancelling and triaging runs, for every face: a face names a run by its id
and gets plain data back (an outcome, a state), never a Temporal handle.

`Runs` is what a face holds between two calls: the opaque connection the wiring or
`run_connection.connect` made (handles.py). A face passes it on and cannot call it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError
from temporalio.service import RPCError, RPCStatusCode

from signoff.service.handles import Runs, client_of
from signoff.service.pending import run_state
from signoff.service.run_terms import RunNotFound
from signoff.service.run_watch import RunChange, history_batches, watch_run
from signoff.service.runs import start_run
from signoff.service.triage_start import ensure_triage
from workflows.agent_run import AgentRun
from workflows.contracts import RunEvent, RunOutcome, RunRequest, RunState
from workflows.triage import TriageTicket
from workflows.triage_contracts import TriageOutcome, TriageRequest

__all__ = [
    "POLL_SECONDS",
    "RunAlreadyEnded",
    "Runs",
    "TriageDidNotFinish",
    "cancel",
    "changes_of",
    "follow",
    "start",
    "triage",
]

# How often a follower asks the run for its new events while it waits for the outcome.
POLL_SECONDS = 0.5


class RunAlreadyEnded(Exception):
    """A cancel of a run that has ended: nothing to cancel."""


class TriageDidNotFinish(Exception):
    """The triage workflow failed; the message says why, in Temporal's words."""


async def start(runs: Runs, request: RunRequest, task_queue: str) -> tuple[str, bool]:
    """Start the run, or find the one this request already started: (run id, new).
    Raises RunRequestRejected (runs.py) for a request that must not start."""
    handle, new = await start_run(runs, request, task_queue)
    return handle.id, new


async def follow(
    runs: Runs, run_id: str, on_event: Callable[[RunEvent], None] | None = None
) -> RunOutcome:
    """Wait for the run's outcome; meanwhile hand each new progress event to `on_event`
    once (when given), from the run's `state` query."""
    handle = client_of(runs).get_workflow_handle_for(AgentRun.run, run_id)
    result = asyncio.create_task(handle.result())
    shown = 0
    while True:
        done, _ = await asyncio.wait({result}, timeout=POLL_SECONDS)
        if on_event is not None:
            state = await run_state(runs, run_id)
            if state is not None:
                for event in state.events[shown:]:
                    on_event(event)
                shown = max(shown, len(state.events))
        if done:
            outcome: RunOutcome = result.result()
            return outcome


async def cancel(runs: Runs, run_id: str) -> None:
    """Ask the run to cancel (the step in flight too). Raises RunNotFound or
    RunAlreadyEnded."""
    handle = client_of(runs).get_workflow_handle(run_id)
    try:
        description = await handle.describe()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            raise RunNotFound(run_id) from None
        raise
    if description.status != WorkflowExecutionStatus.RUNNING:
        raise RunAlreadyEnded(run_id)
    await handle.cancel()


async def triage(runs: Runs, request: TriageRequest, task_queue: str) -> TriageOutcome:
    """Run the triage of this request to its outcome (the one started before, for the
    same request id). Raises TriageDidNotFinish."""
    triage_id = await ensure_triage(runs, request, task_queue)
    handle = client_of(runs).get_workflow_handle_for(TriageTicket.run, triage_id)
    try:
        return await handle.result()
    except WorkflowFailureError as error:
        raise TriageDidNotFinish(f"Triage {triage_id} did not finish: {error.cause}") from None


def changes_of(runs: Runs, run_id: str, seen: int = 0) -> AsyncIterator[RunChange]:
    """Each change of the run's state until it ends (run_watch.py), its events after the
    first `seen`; a state the run does not give now (no worker) waits for the next change.
    """

    async def read_state() -> RunState | None:
        # None when no worker answers now: the next change tries again.
        return await run_state(runs, run_id)

    client = client_of(runs)
    batches = history_batches(client.workflow_service, client.namespace, run_id)
    return watch_run(batches, read_state, seen)
