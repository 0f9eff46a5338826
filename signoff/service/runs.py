"""Starting and reading runs: the one place that knows how a run id is made.

A run's workflow id derives from its tenant and request id, and a second start with
the same pair returns the run that exists (running or finished) instead of a new one,
but only when that run belongs to the same tenant. The tenant is read from the run's
own input (its first history event), not from a search attribute a client chose.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from temporalio.client import WorkflowHandle
from temporalio.common import (
    SearchAttributeKey,
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from signoff.config.telemetry import invoke_agent_span, run_trace
from signoff.service.handles import Runs, client_of
from workflows.agent_run import AgentRun
from workflows.contracts import STATUS_ATTRIBUTE, TENANT_ATTRIBUTE, RunRequest, run_id_for

STATUS_KEY = SearchAttributeKey.for_keyword(STATUS_ATTRIBUTE)
TENANT_KEY = SearchAttributeKey.for_keyword(TENANT_ATTRIBUTE)


class RunRequestRejected(ValueError):
    """A request that must not start: the message says what is wrong."""


async def request_of_run(runs: Runs, run_id: str) -> RunRequest | None:
    """The run's own request, from its start event; None if it is not a RunRequest."""
    client = client_of(runs)
    handle = client.get_workflow_handle(run_id)
    async for event in handle.fetch_history_events():
        payloads = event.workflow_execution_started_event_attributes.input.payloads
        if not payloads:
            return None
        try:
            [started] = await client.data_converter.decode(payloads, [RunRequest])
        except Exception:  # not a RunRequest at all: certainly not this tenant's run
            return None
        return started if isinstance(started, RunRequest) else None
    return None


async def tenant_of_run(runs: Runs, run_id: str) -> str | None:
    """The tenant in the run's own request, or None if unreadable."""
    request = await request_of_run(runs, run_id)
    return request.tenant_id if request is not None else None


async def _same_tenant(
    runs: Runs, handle: WorkflowHandle[Any, Any], request: RunRequest
) -> WorkflowHandle[Any, Any]:
    tenant = await tenant_of_run(runs, handle.id)
    if tenant != request.tenant_id:
        # Never hand one tenant another's run, not even its id's existence in detail.
        raise RunRequestRejected(
            f"Run id {handle.id} is taken by a run that is not tenant "
            f"'{request.tenant_id}'s. Use another --request-id."
        )
    return handle


def check_startable(request: RunRequest, now: datetime | None = None) -> None:
    """Edge checks that need a clock, which the workflow must not read."""
    now = now or datetime.now(UTC)
    if request.deadline.tzinfo is None:
        raise RunRequestRejected("The deadline must carry a time zone (UTC is fine).")
    if request.deadline <= now:
        raise RunRequestRejected(
            f"The deadline {request.deadline.isoformat()} is already past; give a later one."
        )


async def start_run(
    runs: Runs, request: RunRequest, task_queue: str, now: datetime | None = None
) -> tuple[WorkflowHandle[Any, Any], bool]:
    """Start the run, or find the one this request already started. Returns (handle, new).

    No lookup before the start: the start itself says "already started" when the id is
    held by a run, running (conflict policy FAIL) or closed (reuse policy
    REJECT_DUPLICATE), and only then is the holder's tenant read. A new run costs one
    round trip, not a NOT_FOUND describe first.
    """
    client = client_of(runs)
    run_id = run_id_for(request.tenant_id, request.request_id)
    try:
        check_startable(request, now)
    except RunRequestRejected:
        # A retried request whose deadline has passed since still names its one run.
        existing = await _existing_run(runs, request, run_id)
        if existing is None:
            raise
        return existing, False
    try:
        # One trace per run, rooted at its `invoke_agent` span (config/telemetry.py).
        with (
            run_trace(request.trace_id),
            invoke_agent_span(
                _agent_name(request),
                provider=request.model.provider,
                model_id=request.model.model_id,
                tenant_id=request.tenant_id,
                run_id=run_id,
            ),
        ):
            handle = await client.start_workflow(
                AgentRun.run,
                request,
                id=run_id,
                task_queue=task_queue,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
                search_attributes=TypedSearchAttributes(
                    [
                        SearchAttributePair(STATUS_KEY, "running"),
                        SearchAttributePair(TENANT_KEY, request.tenant_id),
                    ]
                ),
            )
        return handle, True
    except WorkflowAlreadyStartedError:
        holder = client.get_workflow_handle_for(AgentRun.run, run_id)
        return await _same_tenant(runs, holder, request), False


def _agent_name(request: RunRequest) -> str:
    if request.profile is not None:
        return request.profile.agent_name
    # A request without a profile runs the built-in file's default agent; its profiles
    # are read only then (`signoff run` always names one).
    from signoff.config.profiles import builtin_agent_name

    return builtin_agent_name()


async def _existing_run(
    runs: Runs, request: RunRequest, run_id: str
) -> WorkflowHandle[Any, Any] | None:
    """The run this request already started, if any (refused if another tenant's)."""
    existing = client_of(runs).get_workflow_handle_for(AgentRun.run, run_id)
    try:
        await existing.describe()
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
        return None
    return await _same_tenant(runs, existing, request)
