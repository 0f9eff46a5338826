"""Recorded scenarios of approval policies (docs/approvals-policies.md): a refund that
three reviewers approve, one of them from finance; and one that nobody decides on, which
escalates to a support lead once and then expires. Their worker runs on a profile with
that refund policy, and the store holds the reviewers of those roles.
"""

from __future__ import annotations

import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker

from signoff.config.settings import Settings
from signoff.wiring.worker import build_worker
from tests.replay.record_histories import DEMO, agent_request, decision, wait_for_pending
from tests.workflow.team_policies import (
    ESCALATES,
    TEAM,
    THREE_WITH_FINANCE,
    add_team,
    refund_policy,
)
from workflows.agent_run import AgentRun
from workflows.contracts import run_id_for

POLICIES = {"agent_run_three_approvers": THREE_WITH_FINANCE, "agent_run_escalated": ESCALATES}
# The profile files of this recording (a directory per policy), removed with the process.
PROFILE_HOME = tempfile.TemporaryDirectory()


def profile_dir(name: str) -> Path:
    folder = Path(PROFILE_HOME.name) / name
    folder.mkdir(exist_ok=True)
    return folder


def policy_worker(name: str) -> Any:
    def make(client: Client, settings: Settings, engine: Engine) -> Worker:
        profiles = refund_policy(profile_dir(name), POLICIES[name])
        add_team(engine)
        return build_worker(
            client, settings.model_copy(update={"profiles": profiles.source}), engine
        )

    return make


async def start(
    client: Client, queue: str, now: datetime, name: str, engine: Engine
) -> WorkflowHandle[Any, Any]:
    profiles = refund_policy(profile_dir(name), POLICIES[name])
    request = agent_request("T-1042", now, DEMO, (profiles, engine))
    return await client.start_workflow(
        AgentRun.run, request, id=run_id_for("demo", request.request_id), task_queue=queue
    )


async def three_approvers(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    """alice, then bob, then erin of finance: the refund happens once, on the third."""
    handle = await start(client, queue, now, "agent_run_three_approvers", engine)
    digest = await wait_for_pending(handle)
    for reviewer in ("alice", "bob", "erin"):
        # The roles the reviewer's session claims (the signature does not cover them).
        claimed = {"reviewer_roles": TEAM.get(reviewer, "refund_approver").split(",")}
        approval = decision(handle, digest, reviewer, "approve").model_copy(update=claimed)
        await handle.execute_update(AgentRun.decide, approval)
    await handle.result()
    return handle


async def escalated(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    """Nobody decides: after 2 h it escalates to support_lead for 4 h, then expires
    (awaiting the result lets the test server skip both)."""
    handle = await start(client, queue, now, "agent_run_escalated", engine)
    await wait_for_pending(handle)
    await handle.result()
    return handle


SCENARIOS = {"agent_run_three_approvers": three_approvers, "agent_run_escalated": escalated}
WORKERS = {name: policy_worker(name) for name in SCENARIOS}
