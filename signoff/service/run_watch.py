"""Following a run as it goes: each change of its state, learned from its history.

Design note. A watcher must not ask the run's `state` query on a timer: every query
makes a worker answer (replaying the run when its cache dropped it), once per open
page and per tick, whether anything happened or not. Instead it long-polls the run's
history (`GetWorkflowExecutionHistory` with `wait_new_event`): Temporal answers when
the history grows, or when its long poll expires with nothing new (the watcher then
yields a keep-alive, so that a face can notice a listener that went away). The run's
state changes only when its code runs, that is when a workflow task completes (a turn
was asked, a tool answered, a decision taken), and at its close: only batches holding
such an event cost a query. The run's events (`RunState.events`) are append-only, so
a listener that has seen N of them is sent those after N, each once.

Both faces use this: the run page's event stream (approvals_ui/routers/run_events.py,
through the client's service) and `signoff status --follow` (through the bare
service). Each passes its own reader of the `state` query; the caller has checked that
the listener may see the run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.api.workflowservice.v1 import GetWorkflowExecutionHistoryRequest
from temporalio.service import RPCError, RPCStatusCode, WorkflowService

from signoff.service.run_reading import RunNotFound
from workflows.contracts import RunEvent, RunState

StateReader = Callable[[], Awaitable[RunState | None]]

# The events after which the run's state may differ: its code ran, or it closed.
STATE_MAY_CHANGE = frozenset({EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED})
CLOSED = frozenset(
    {
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
    }
)


@dataclass(frozen=True)
class RunChange:
    """What a listener is told: the state (None in a keep-alive, or when no worker
    answered), the run's events it has not seen yet, how many it has seen with these,
    and whether the run has ended (then nothing follows)."""

    state: RunState | None
    events: list[RunEvent] = field(default_factory=list)
    seen: int = 0
    ended: bool = False

    @property
    def keep_alive(self) -> bool:
        return self.state is None and not self.events and not self.ended


@dataclass(frozen=True)
class HistoryBatch:
    """One answer of the long poll: whether the state may have changed, whether the run
    closed (nothing more will come), or neither (the poll expired)."""

    state_may_change: bool
    closed: bool


def batch_of(events: Sequence[HistoryEvent], next_page_token: bytes) -> HistoryBatch:
    closed = not next_page_token or any(event.event_type in CLOSED for event in events)
    changed = any(event.event_type in STATE_MAY_CHANGE for event in events)
    return HistoryBatch(state_may_change=changed, closed=closed)


async def history_batches(
    service: WorkflowService, namespace: str, run_id: str
) -> AsyncIterator[HistoryBatch]:
    """The run's history as it grows, one batch per answer, until it closes.

    The first batch holds the history so far; RunNotFound when there is no such run.
    """
    token = b""
    while True:
        request = GetWorkflowExecutionHistoryRequest(
            namespace=namespace,
            execution=WorkflowExecution(workflow_id=run_id),
            next_page_token=token,
            wait_new_event=True,
            skip_archival=True,
        )
        try:
            response = await service.get_workflow_execution_history(request, retry=True)
        except RPCError as error:
            if error.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
                raise RunNotFound(run_id) from None
            raise
        batch = batch_of(response.history.events, response.next_page_token)
        yield batch
        if batch.closed:
            return
        token = response.next_page_token


async def watch_run(
    batches: AsyncIterator[HistoryBatch], read_state: StateReader, seen: int = 0
) -> AsyncIterator[RunChange]:
    """Each change of the run's state, with its events after the first `seen`, until
    the run ends; a keep-alive for each expired long poll.

    The first change is the state as it is now, so a listener that rendered the run a
    moment ago misses nothing that happened between its read and this one.
    """
    last: RunState | None = None
    first = True
    async for batch in batches:
        if not (first or batch.state_may_change or batch.closed):
            yield RunChange(state=None, seen=seen)
            continue
        first = False
        state = await read_state()
        ended = batch.closed or (state is not None and state.outcome is not None)
        if state is None or (state == last and not ended):
            if ended:
                yield RunChange(state=None, seen=seen, ended=True)
                return
            continue
        last = state
        new = state.events[seen:]
        seen = max(seen, len(state.events))
        yield RunChange(state=state, events=new, seen=seen, ended=ended)
        if ended:
            return
