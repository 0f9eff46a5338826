"""Temporal's own SDK metrics beside ours: a worker on `worker_runtime` serves them.

`SIGNOFF_TEMPORAL_METRICS_PORT` gives the worker's client a runtime whose Rust core
serves Prometheus; after one small run on the time-skipping server, a scrape of that
port shows the SDK's `temporal_*` series, and the run's workflow among them.
"""

from __future__ import annotations

import urllib.request
from pathlib import Path

from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from signoff.config.settings import Settings
from signoff.config.telemetry import worker_runtime
from tests.workflow.fakes import new_task_queue
from tests.workflow.observed_run import free_port
from tests.workflow.test_worker_interceptor import ObserveTestRun, flaky


async def test_the_worker_runtime_serves_temporal_sdk_metrics(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    port = free_port()
    settings = Settings(home=tmp_path, temporal_metrics_port=port)
    runtime = worker_runtime(settings)
    assert runtime is not None
    client = await Client.connect(
        time_skipping_env.client.service_client.config.target_host,
        namespace=time_skipping_env.client.namespace,
        runtime=runtime,
    )
    task_queue = new_task_queue()
    async with Worker(
        client,
        task_queue=task_queue,
        workflows=[ObserveTestRun],
        activities=[flaky],
        workflow_runner=UnsandboxedWorkflowRunner(),
    ):
        handle = await client.start_workflow(
            ObserveTestRun.run, id=f"sdk-metrics-{task_queue}", task_queue=task_queue
        )
        await time_skipping_env.client.get_workflow_handle(handle.id).result()

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    assert "temporal_workflow_completed" in text
    assert 'workflow_type="ObserveTestRun"' in text
    assert "temporal_activity_execution_failed" in text  # the flaky first attempt
