"""start_run asks Temporal once for a new run: no describe before the start.

The start's own "already started" answer finds the run a request already started; a
lookup happens only when the request could not start anyway (its deadline has passed),
to hand back the run it started before.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from temporalio.client import (
    Client,
    DescribeWorkflowInput,
    Interceptor,
    OutboundInterceptor,
    StartWorkflowInput,
    WorkflowExecutionDescription,
    WorkflowHandle,
)
from temporalio.testing import WorkflowEnvironment

from signoff.service.handles import Runs
from signoff.service.runs import RunRequestRejected, start_run
from tests.workflow.fakes import FakeModel, Gate, new_task_queue, run_request, worker


class CountingOutbound(OutboundInterceptor):
    def __init__(self, next: OutboundInterceptor, calls: Counter[str]) -> None:
        super().__init__(next)
        self.calls = calls

    async def start_workflow(self, input: StartWorkflowInput) -> WorkflowHandle[Any, Any]:
        self.calls["start"] += 1
        return await super().start_workflow(input)

    async def describe_workflow(self, input: DescribeWorkflowInput) -> WorkflowExecutionDescription:
        self.calls["describe"] += 1
        return await super().describe_workflow(input)


class Counting(Interceptor):
    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def intercept_client(self, next: OutboundInterceptor) -> OutboundInterceptor:
        return CountingOutbound(next, self.calls)


def counting_client(client: Client) -> tuple[Client, Counter[str]]:
    counting = Counting()
    config = client.config()
    config["interceptors"] = [counting]
    return Client(**config), counting.calls


async def test_a_new_run_costs_one_start_and_no_describe(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    env = time_skipping_env
    client, calls = counting_client(env.client)
    gate = Gate()
    task_queue = new_task_queue()
    now = await env.get_current_time()
    request = run_request(now)
    async with worker(env.client, task_queue, FakeModel().enqueue(gate)):
        handle, new = await start_run(Runs(client), request, task_queue, now=now)
        assert new is True
        assert calls == Counter(start=1)
        # The same request again: the start says "already started", and that is the run.
        again, again_new = await start_run(Runs(client), request, task_queue, now=now)
        assert (again.id, again_new) == (handle.id, False)
        assert calls["describe"] == 0
        await handle.terminate("test over")


async def test_a_retry_after_the_deadline_still_finds_its_run(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    env = time_skipping_env
    task_queue = new_task_queue()
    now = await env.get_current_time()
    request = run_request(now)
    async with worker(env.client, task_queue, FakeModel().enqueue(Gate())):
        handle, _ = await start_run(Runs(env.client), request, task_queue, now=now)
        later = request.deadline + timedelta(minutes=1)
        again, new = await start_run(Runs(env.client), request, task_queue, now=later)
        assert (again.id, new) == (handle.id, False)
        await handle.terminate("test over")


async def test_a_new_request_past_its_deadline_is_refused(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    env = time_skipping_env
    now = await env.get_current_time()
    request = run_request(now)
    with pytest.raises(RunRequestRejected, match="already past"):
        await start_run(
            Runs(env.client), request, new_task_queue(), now=request.deadline + timedelta(seconds=1)
        )
