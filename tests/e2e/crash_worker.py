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

from activities.model_turn import build_model_turns
from activities.refunds import RefundActivities
from activities.store import make_engine
from signoff.config.data_converter import data_converter
from signoff.config.settings import Settings
from signoff.wiring.worker_activities import worker_activities
from tests.workflow.approvals import TEST_KEYS, store_parts
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
    refunds = RefundsThatCrashAfterCommit(engine, TEST_KEYS)
    worker = Worker(
        client,
        task_queue=task_queue,
        workflows=[AgentRun],
        activities=worker_activities(
            store_parts(engine, models, refunds=refunds, settings=settings)
        ),
        max_cached_workflows=0,
    )
    async with worker:
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
