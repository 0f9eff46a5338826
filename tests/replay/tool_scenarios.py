"""A recorded run of a team's own irreversible Python tool behind the gate: the model
asks `issue_voucher` (tests/tools/team_tools.py, named by team_profile.toml), the run
waits, a reviewer approves, the voucher is issued once. Its worker runs that profile,
with a fake model (no scripted demo script calls a test tool)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker

from signoff.config.profiles import load_profile_file
from signoff.config.settings import Settings
from signoff.wiring.worker_activities import worker_activities
from tests.replay.record_histories import DEMO, agent_request, decision, wait_for_pending
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
from workflows.agent_run import AgentRun
from workflows.contracts import run_id_for

TEAM = load_profile_file(Path(__file__).parents[1] / "tools" / "team_profile.toml")
VOUCHER = ("issue_voucher", {"value": 10, "reason": "The parcel came a week late."})


def voucher_worker(client: Client, settings: Settings, engine: Engine) -> Worker:
    model = FakeModel().enqueue(tool_reply(VOUCHER), text_reply("A voucher is on its way."))
    limits = keyed_limits(generous_limits, TEST_KEYS, SKIPPING_MAX_AGE)
    parts = store_parts(engine, model, profiles=TEAM)
    return worker(
        client,
        settings.task_queue,
        model,
        activities=worker_activities(parts, replacing=[limited(model, limits)]),
    )


async def voucher_approved(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    request = agent_request("T-1042", now, DEMO, (TEAM, engine))
    handle = await client.start_workflow(
        AgentRun.run, request, id=run_id_for("demo", request.request_id), task_queue=queue
    )
    digest = await wait_for_pending(handle)
    await handle.execute_update(AgentRun.decide, decision(handle, digest, "alice", "approve"))
    await handle.result()
    return handle


SCENARIOS = {"agent_run_python_tool_approved": voucher_approved}
WORKERS = {"agent_run_python_tool_approved": voucher_worker}
