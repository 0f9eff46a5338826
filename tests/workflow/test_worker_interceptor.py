"""The worker's metrics interceptor: retried and failed attempts, and runs counted once.

A small workflow whose one activity fails on its first attempt runs on the time-skipping
server with `ObserveInterceptor`; then its history is replayed with the same interceptor
and the run must not be counted a second time (a worker that picks a run up after a
crash replays it).
"""

from __future__ import annotations

from datetime import timedelta

from prometheus_client import REGISTRY
from temporalio import activity, workflow
from temporalio.common import RetryPolicy
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner, Worker

from activities.observe_interceptor import ObserveInterceptor
from tests.workflow.fakes import new_task_queue

ACTIVITY = "observe_test_flaky"


@activity.defn(name=ACTIVITY)
async def flaky() -> str:
    if activity.info().attempt == 1:
        raise RuntimeError("the first attempt fails")
    return "ok"


@workflow.defn(name="ObserveTestRun")
class ObserveTestRun:
    @workflow.run
    async def run(self) -> dict[str, str]:
        await workflow.execute_activity(
            ACTIVITY,
            start_to_close_timeout=timedelta(seconds=10),
            retry_policy=RetryPolicy(
                initial_interval=timedelta(milliseconds=1), maximum_attempts=3
            ),
        )
        return {"status": "completed", "reason": "answered"}


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_retries_failures_and_runs_are_counted_once(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    retries = value("signoff_activity_retries_total", activity=ACTIVITY)
    failed = value("signoff_activity_failures_total", activity=ACTIVITY, error="RuntimeError")
    runs = {"workflow": "ObserveTestRun", "status": "completed", "reason": "-"}
    finished = value("signoff_runs_total", **runs)
    task_queue = new_task_queue()
    async with Worker(
        time_skipping_env.client,
        task_queue=task_queue,
        workflows=[ObserveTestRun],
        activities=[flaky],
        interceptors=[ObserveInterceptor()],
        workflow_runner=UnsandboxedWorkflowRunner(),
    ):
        handle = await time_skipping_env.client.start_workflow(
            ObserveTestRun.run, id=f"observe-{task_queue}", task_queue=task_queue
        )
        assert await handle.result() == {"status": "completed", "reason": "answered"}

    assert value("signoff_activity_retries_total", activity=ACTIVITY) - retries == 1
    failures = value("signoff_activity_failures_total", activity=ACTIVITY, error="RuntimeError")
    assert failures - failed == 1
    # A dict result has no status attribute: the run is counted as completed, reason "-".
    assert value("signoff_runs_total", **runs) - finished == 1

    replayer = Replayer(
        workflows=[ObserveTestRun],
        interceptors=[ObserveInterceptor()],
        workflow_runner=UnsandboxedWorkflowRunner(),
    )
    await replayer.replay_workflow(await handle.fetch_history())
    assert value("signoff_runs_total", **runs) - finished == 1  # replay counts nothing
