"""The visibility listing (`read_runs`) reads a run's memo when it has one and its query
when not; both readings of the same real runs must agree, and stay within the tenant.

No run publishes a memo now (the inbox reads the store's read model), so here both
readings go through the query."""

from __future__ import annotations

import asyncio

import pytest

from signoff.config.decision_keys import load_signer
from signoff.config.temporal_client import connect
from signoff.service.decisions import Choice, Decider, signed_decision
from signoff.service.pending import list_pending, send_decision
from signoff.service.run_listing import RunSummary, read_runs
from tests.ui.conftest import DevStack, RefundCase
from workflows.contracts import TENANT_ATTRIBUTE, WORKFLOW_NAME

pytestmark = pytest.mark.devserver


def tenant_runs_query(tenant_id: str) -> str:
    return f"WorkflowType = '{WORKFLOW_NAME}' AND {TENANT_ATTRIBUTE} = '{tenant_id}'"


def by_run(runs: list[RunSummary], run_id: str) -> RunSummary:
    (run,) = [run for run in runs if run.run_id == run_id]
    return run


async def test_memo_and_query_readings_agree(dev_stack: DevStack, pending_case: RefundCase) -> None:
    client = await connect(dev_stack.settings())
    run_id = pending_case.run_id
    memo_items = [item for item in await list_pending(client, "demo") if item.run_id == run_id]
    query_items = [
        item
        for item in await list_pending(client, "demo", trust_memo=False)
        if item.run_id == run_id
    ]
    assert len(memo_items) == 1 and memo_items == query_items

    rejection = signed_decision(
        load_signer(dev_stack.settings()),
        run_id,
        Decider("bob", "demo", ("refund_approver",)),
        memo_items[0].action.action_hash,
        "reject",
        "no photo",
        choice=Choice(category="other"),
    )
    await send_decision(client, run_id, rejection)
    query = tenant_runs_query("demo")
    for _ in range(100):  # visibility catches up with the rejection
        by_memo = await read_runs(client, query, tenant_id="demo", limit=500)
        if by_run(by_memo.runs, run_id).decisions:
            break
        await asyncio.sleep(0.1)
    by_query = await read_runs(client, query, tenant_id="demo", limit=500, trust_memo=False)
    globex = await read_runs(client, query, tenant_id="globex", limit=500)

    assert by_run(by_memo.runs, run_id) == by_run(by_query.runs, run_id)
    trail = by_run(by_memo.runs, run_id).decisions
    assert [(d.kind, d.reviewer_id, d.reason) for d in trail] == [("rejected", "bob", "no photo")]
    assert by_query.unanswered == 0
    assert run_id not in {run.run_id for run in globex.runs}
