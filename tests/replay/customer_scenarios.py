"""Recorded runs that ask their customer (`ask_customer`, tests/workflow/
ask_customer_profile.toml): one whose customer answers through the `customer_reply`
update, one whose question expires into the named outcome `no_reply` after two days of
skipped time. Their worker runs that profile, with a fake model (no scripted demo
script asks anything)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker

from signoff.config.settings import Settings
from signoff.wiring.worker_activities import worker_activities
from tests.replay.record_histories import DEMO, agent_request
from tests.workflow.approvals import SKIPPING_MAX_AGE, TEST_KEYS, store_parts
from tests.workflow.fakes import (
    FakeModel,
    generous_limits,
    limited,
    text_reply,
    tool_reply,
    worker,
)
from tests.workflow.run_keys import keyed_limits
from tests.workflow.test_ask_customer import ASK, ASKING, reply
from workflows.agent_run import AgentRun
from workflows.contracts import run_id_for

POLLS = 400
POLL_SECONDS = 0.05


def asking_worker(client: Client, settings: Settings, engine: Engine) -> Worker:
    model = FakeModel().enqueue(tool_reply(ASK), text_reply("Thank you; I will check it."))
    limits = keyed_limits(generous_limits, TEST_KEYS, SKIPPING_MAX_AGE)
    parts = store_parts(engine, model, profiles=ASKING)
    return worker(
        client,
        settings.task_queue,
        model,
        activities=worker_activities(parts, replacing=[limited(model, limits)]),
    )


async def _asking(client: Client, queue: str, now: datetime, engine: Engine) -> Any:
    request = agent_request("T-1042", now, DEMO, (ASKING, engine))
    return await client.start_workflow(
        AgentRun.run, request, id=run_id_for("demo", request.request_id), task_queue=queue
    )


async def customer_replied(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    handle = await _asking(client, queue, now, engine)
    for _ in range(POLLS):
        if (await handle.query(AgentRun.state)).status == "waiting_for_customer":
            break
        await asyncio.sleep(POLL_SECONDS)
    else:
        raise RuntimeError("the run never waited for its customer")
    await handle.execute_update(AgentRun.customer_reply, reply())
    await handle.result()
    return handle


async def customer_no_reply(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    handle = await _asking(client, queue, now, engine)
    await handle.result()  # the time-skipping server skips the two days
    return handle


SCENARIOS = {
    "agent_run_customer_replied": customer_replied,
    "agent_run_customer_no_reply": customer_no_reply,
}
WORKERS = {name: asking_worker for name in SCENARIOS}
