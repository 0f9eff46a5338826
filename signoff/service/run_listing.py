"""Many runs at once, for the inbox: one visibility call lists them with
the memo each publishes (RunMemo: its pending actions and decision trail), so that no
run is asked anything. A run from before runs published the whole memo is read through
its `state` query instead; one that does not answer (no worker) is counted, not guessed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from temporalio.client import Client, WorkflowExecution, WorkflowHandle
from temporalio.service import RPCError

from signoff.service.run_reading import QUERY_TIMEOUT
from signoff.service.runs import TENANT_KEY
from workflows.actions import DecisionRecord, PendingAction
from workflows.agent_run import AgentRun
from workflows.contracts import RUN_MEMO_KEY, RunMemo, RunState

# State queries in flight at once, for runs without a memo: quick, and spares the worker.
QUERY_CONCURRENCY = 20


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    tenant_id: str
    ticket_id: str
    pending_actions: list[PendingAction]
    decisions: list[DecisionRecord]


@dataclass(frozen=True)
class RunListing:
    runs: list[RunSummary]
    listed: int  # runs visibility listed
    unanswered: int  # of those, runs without a memo whose query got no answer


async def read_runs(
    client: Client,
    query: str,
    *,
    tenant_id: str | None,
    limit: int | None,
    trust_memo: bool = True,
) -> RunListing:
    """The runs `query` lists, of `tenant_id` only (every tenant when None); every one
    of them when `limit` is None.

    `trust_memo=False` reads every run through its query, as before runs published a
    memo: bench/inbox_live.py compares the two.
    """
    executions = [
        execution
        async for execution in client.list_workflows(query=query, limit=limit)
        if tenant_id is None or execution.typed_search_attributes.get(TENANT_KEY) == tenant_id
    ]
    memos = await asyncio.gather(*(run_memo(execution) for execution in executions))
    runs: list[RunSummary] = []
    unpublished: list[str] = []
    for execution, memo in zip(executions, memos, strict=True):
        tenant = execution.typed_search_attributes.get(TENANT_KEY)
        if trust_memo and memo is not None and memo.decisions is not None and tenant:
            runs.append(
                RunSummary(
                    execution.id, tenant, memo.ticket_id, memo.pending_actions, memo.decisions
                )
            )
        else:
            unpublished.append(execution.id)
    gate = asyncio.Semaphore(QUERY_CONCURRENCY)

    async def summary_of(run_id: str) -> RunSummary | None:
        async with gate:
            state = await try_state(client.get_workflow_handle_for(AgentRun.run, run_id))
        if state is None or (tenant_id is not None and state.tenant_id != tenant_id):
            return None
        return RunSummary(
            run_id, state.tenant_id, state.ticket_id, state.pending_actions, state.decisions
        )

    queried = await asyncio.gather(*(summary_of(run_id) for run_id in unpublished))
    answered = [summary for summary in queried if summary is not None]
    return RunListing(runs + answered, len(executions), len(unpublished) - len(answered))


async def run_memo(execution: WorkflowExecution) -> RunMemo | None:
    """What a run published in its memo; None when it published none."""
    try:
        memo: RunMemo | None = await execution.memo_value(RUN_MEMO_KEY, None, type_hint=RunMemo)
    except Exception:  # a memo we cannot read: the run's query will tell instead
        return None
    return memo


async def try_state(handle: WorkflowHandle[Any, Any]) -> RunState | None:
    """The run's `state` query; None when no worker answers (or the run is gone)."""
    try:
        return await handle.query(AgentRun.state, rpc_timeout=QUERY_TIMEOUT)
    except RPCError:
        return None
