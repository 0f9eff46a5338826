"""The minimal baseline end to end on a Temporal dev server: the bench finds its run
waiting by the history long-poll (which the time-skipping test server does not serve),
a decision on another action is refused, and the approval makes one refund row on the
ledger (bench/runs/minimal_workflow.py)."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.store import make_engine, seed_demo
from activities.store.refunds import list_refunds
from bench.runs.minimal_activities import MinimalShop
from bench.runs.minimal_workflow import (
    MINIMAL_WORKFLOW_NAME,
    MinimalDecision,
    MinimalRefund,
    MinimalRequest,
)
from bench.runs.samples import pending_hash
from signoff.config.data_converter import data_converter
from testkit.refund_cases import PAID_MINOR, add_refund_cases
from workflows.sandbox import workflow_runner

pytestmark = pytest.mark.devserver  # a dev server of its own
DAY_SECONDS = 24 * 3600


async def test_a_minimal_run_waits_is_approved_and_refunds_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'signoff.db'}"
    engine = make_engine(url)
    seed_demo(engine)
    (ticket,) = add_refund_cases(url, "demo", 1)
    shop = MinimalShop(url)
    queue = f"minimal-{uuid.uuid4().hex}"
    env = await WorkflowEnvironment.start_local(
        data_converter=data_converter,
        dev_server_existing_path=str(Path(sys.executable).parent / "temporal"),
    )
    try:
        async with Worker(
            env.client,
            task_queue=queue,
            workflows=[MinimalRefund],
            workflow_runner=workflow_runner("bench.runs.minimal_workflow"),
            activities=[
                shop.model_turn,
                shop.read_ticket,
                shop.get_order,
                shop.read_action_state,
                shop.execute_refund,
            ],
        ):
            handle: Any = await env.client.start_workflow(
                MINIMAL_WORKFLOW_NAME,
                MinimalRequest("demo", ticket, DAY_SECONDS),
                id=f"minimal-{uuid.uuid4().hex}",
                task_queue=queue,
            )
            digest = await pending_hash("minimal", handle)
            with pytest.raises(WorkflowUpdateFailedError):
                await handle.execute_update(
                    "decide", MinimalDecision("0" * 64, "alice", "approve"), result_type=str
                )
            answer = await handle.execute_update(
                "decide", MinimalDecision(digest, "alice", "approve"), result_type=str
            )
            text = await handle.result()
    finally:
        await env.shutdown()

    (row,) = list_refunds(engine, "demo", ticket.removeprefix("T-"))
    engine.dispose()
    assert answer == "approved"
    assert text == "Your refund is refunded."
    assert (row.action_hash, row.amount_minor, row.approver_list) == (digest, PAID_MINOR, ["alice"])
