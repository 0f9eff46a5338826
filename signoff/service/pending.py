"""One waiting run, and a decision sent to it, as the CLI and the reviewer UI both use
them.

The inbox is listed from the store's read model (waiting_listing.py); one run is read
through its `state` query, the truth (the detail page reads it), by the service's one
reader of a run (run_reading.py) over the runs' connection; a decision is the
`decide` update, whose validator refuses a decision on an action that no longer waits.
`waiting_query` is the visibility query of waiting runs, which the read model's
reconcile (waiting_reconcile.py) compares itself with.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from signoff.config.temporal_service import service_of_client
from signoff.service import run_reading
from signoff.service.decision_limits import DECIDE_RPC_TIMEOUT
from signoff.service.handles import Runs, client_of
from signoff.service.pending_item import PendingItem
from signoff.service.run_terms import RunNotFound
from signoff.service.runs import TENANT_KEY
from workflows.actions import Decision, DecisionResult
from workflows.agent_run import AgentRun
from workflows.approval_policy import expired_message
from workflows.contracts import (
    STATUS_ATTRIBUTE,
    TENANT_ATTRIBUTE,
    WORKFLOW_NAME,
    RunState,
)
from workflows.wording import Wording
from workflows.wording_wire import wording_of


class DecisionNotAccepted(Exception):
    """The workflow refused the decision; the message is for the reviewer, as written,
    and its `wording` (where the run sent one) writes it in a page's language."""

    def __init__(
        self,
        message: str,
        *,
        run_ended: bool = False,
        kind: str | None = None,
        wording: Wording | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.run_ended = run_ended
        # The refusal's kind as the run named it (`workflows/refusal_kinds.py`).
        self.kind = kind
        self.wording = wording


def waiting_query(tenant_id: str | None) -> str:
    """The visibility query; `tenant_id` must already match IDENTIFIER_PATTERN."""
    query = f"WorkflowType = '{WORKFLOW_NAME}' AND {STATUS_ATTRIBUTE} = 'waiting_for_approval'"
    if tenant_id:
        query += f" AND {TENANT_ATTRIBUTE} = '{tenant_id}'"
    return query


async def run_state(runs: Runs, run_id: str) -> RunState | None:
    """The run's `state` query (run_reading.run_state, over the runs' connection); None
    when no worker answers in time or no run has the id. Raises StateQueryFailed when the
    run's own code fails the query."""
    return await run_reading.run_state(service_of_client(client_of(runs)), run_id)


async def run_tenant(runs: Runs, run_id: str) -> str | None:
    """The run's tenant from visibility, without asking a worker; None when unknown."""
    client = client_of(runs)
    try:
        description = await client.get_workflow_handle(run_id).describe()
    except RPCError as error:
        if error.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
            raise RunNotFound(run_id) from None
        raise
    if description.workflow_type != WORKFLOW_NAME:
        raise RunNotFound(run_id)
    tenant = description.typed_search_attributes.get(TENANT_KEY)
    return tenant


async def send_decision(
    runs: Runs, run_id: str, decision: Decision, rpc_timeout: timedelta = DECIDE_RPC_TIMEOUT
) -> DecisionResult:
    """Send the `decide` update; DecisionNotAccepted carries the validator's words.

    A reviewer waits for the answer: after `rpc_timeout` the SDK gives up with
    WorkflowUpdateRPCTimeoutOrCancelledError (the caller says what that means)."""
    client = client_of(runs)
    handle = client.get_workflow_handle_for(AgentRun.run, run_id)
    try:
        return await handle.execute_update(AgentRun.decide, decision, rpc_timeout=rpc_timeout)
    except WorkflowUpdateFailedError as error:
        cause = error.cause
        if isinstance(cause, ApplicationError):
            details = cause.details
            wording = wording_of(details[0]) if details else None
            raise DecisionNotAccepted(cause.message, kind=cause.type, wording=wording) from None
        raise DecisionNotAccepted(str(cause)) from None
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            state = await run_state(runs, run_id)
            raise DecisionNotAccepted(
                ended_run_message(state, decision.action_hash, datetime.now(UTC)), run_ended=True
            ) from None
        raise


def ended_run_message(state: RunState | None, action_hash: str, now: datetime) -> str:
    """Why a run that has ended takes no decision, told from what became of the action."""
    records = (
        [record for record in state.decisions if record.action_hash == action_hash] if state else []
    )
    if not records:
        return "This run has ended; it no longer takes decisions."
    last = records[-1]
    if last.kind == "expired":
        return f"{expired_message(last.at, now)} The run has ended."
    if last.kind == "voided":
        return "This request's approval went void (the order changed); the run has ended."
    if last.kind == "edited":
        by = f" by {last.reviewer_id}" if last.reviewer_id else ""
        return f"This request was edited{by} into a new version; the run has ended."
    if last.kind in ("approved", "rejected", "responded"):
        by = f" by {last.reviewer_id}" if last.reviewer_id else ""
        return f"This request was already {last.kind}{by}; the run has ended."
    return (
        f"This run ended before this request was decided ({last.kind}); the refund did not happen."
    )


def time_left(expires_at: datetime, now: datetime) -> str:
    """`3 h 12 min left`, `40 s left`, or `expired 3 min ago`, for people."""
    seconds = int((expires_at - now).total_seconds())
    if seconds <= 0:
        ago = -seconds
        return f"expired {ago // 60} min ago" if ago >= 60 else "expired moments ago"
    if seconds < 60:
        return f"{seconds} s left"
    hours, minutes = divmod(seconds // 60, 60)
    return f"{hours} h {minutes} min left" if hours else f"{minutes} min left"


__all__ = [
    "DECIDE_RPC_TIMEOUT",
    "DecisionNotAccepted",
    "ended_run_message",
    "PendingItem",
    "RunNotFound",
    "run_state",
    "run_tenant",
    "send_decision",
    "time_left",
]
