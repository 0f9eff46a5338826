"""A worker process that dies the hard way right after a refund committed.

Started as a subprocess by `test_crash_after_commit.py`. It registers the real workflow
and the real activities, except that the refund activity, once the real one has
returned (the ledger row is committed), kills its own process with SIGKILL: Temporal
never hears that the attempt finished, as when a machine loses power at that moment.

No workflow cache: with none, the next workflow task goes to the shared task queue at
once instead of waiting for this dead worker's sticky queue to time out.

Usage: python -m tests.e2e.crash_worker TEMPORAL_ADDRESS TASK_QUEUE DATABASE_URL HOME
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from temporalio import activity
from temporalio.client import Client
from temporalio.worker import Worker

from activities.decision_verifier import DecisionVerifier
from activities.decisions import DecisionActivities
from activities.model_turn import build_model_turns
from activities.refunds import RefundActivities
from activities.run_limits import RunLimitsActivity
from activities.store import make_engine
from activities.tool_gateway import ToolGateway
from signoff.config.data_converter import data_converter
from signoff.config.settings import Settings
from tests.workflow.approvals import SKIPPING_MAX_AGE, TEST_KEYS
from workflows.actions import EXECUTE_REFUND_ACTIVITY, RefundCommand, RefundResult
from workflows.agent_run import AgentRun


class RefundsThatCrashAfterCommit(RefundActivities):
    @activity.defn(name=EXECUTE_REFUND_ACTIVITY)
    async def execute_refund(self, command: RefundCommand) -> RefundResult:
        result = await super().execute_refund(command)
        os.kill(os.getpid(), signal.SIGKILL)
        return result  # never reached


async def main(address: str, task_queue: str, database_url: str, home: str) -> None:
    settings = Settings(
        home=Path(home), temporal_address=address, task_queue=task_queue, database_url=database_url
    )
    client = await Client.connect(address, data_converter=data_converter)
    engine = make_engine(database_url)
    models = build_model_turns(settings)
    gateway = ToolGateway(engine)
    refunds = RefundsThatCrashAfterCommit(engine, TEST_KEYS)
    worker = Worker(
        client,
        task_queue=task_queue,
        workflows=[AgentRun],
        activities=[
            models.model_turn,
            gateway.run_tool,
            refunds.read_action_state,
            refunds.execute_refund,
            DecisionVerifier(engine, TEST_KEYS, SKIPPING_MAX_AGE).verify_decision,
            refunds.hold_pending_refund,
            refunds.release_pending_refund,
            DecisionActivities(engine, TEST_KEYS).record_decision,
            RunLimitsActivity(settings).run_limits,
        ],
        max_cached_workflows=0,
    )
    async with worker:
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
