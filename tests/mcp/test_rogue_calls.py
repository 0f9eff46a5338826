"""Someone who reaches the Temporal frontend runs a workflow of their own, on a task
queue of their own, and calls signoff's MCP activities and a tool's effect by name on
signoff's queue, with payloads they write. They get nothing the worker's own profile
does not give:

- a stdio server whose command is the attacker's program, handed to either MCP
  activity (the shape the activities once took), runs nothing: the activities take
  names, never a server's declaration;
- a profile hash the worker does not hold is refused, and the refusal is on the audit;
- the team's irreversible MCP tool, asked for as a read under the worker's own profile
  hash, is refused by the worker's policy: the server is never called, and the
  refusal names the calling workflow on the audit;
- the built-in profile's automatic `send_reply`, asked for the attacker's own run id
  with a well-formed action, sends nothing, and the refusal is on the audit.

The genuine paths (a read, an approved write, an automatic reply of a real run) are
tested in test_mcp_runs.py, test_calls.py and tests/workflow/test_reply_tool.py.
"""

from __future__ import annotations

import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.mcp.pin import pin_of
from activities.mcp.resolve import fetch_advertised
from activities.store.connector_schema import CustomerReply
from activities.store.database import use_session
from activities.store.schema import DecisionRow
from signoff.config.profiles import BUILTIN_PROFILES, LoadedProfiles, load_profile_file
from signoff.wiring.worker_activities import worker_activities
from testkit.mcp_server import calls, labels
from tests.mcp.conftest import AGENT, TIMEOUT_SECONDS, RunningServer, declared, held_profile
from tests.workflow.approvals import store_parts
from tests.workflow.fakes import FakeModel
from tests.workflow.rogue_calls import RogueCalls
from workflows.actions import EXECUTE_TOOL_ACTION_ACTIVITY, PendingAction, ToolActionCommand
from workflows.approval_policy import effect_key, recomputed_hash, state_hash
from workflows.mcp_tools import RESOLVE_MCP_TOOLS_ACTIVITY, RUN_MCP_TOOL_ACTIVITY
from workflows.tool_gate import NO_STATE

NOT_HELD = "f" * 64


def attacker_program(marker: Path) -> list[str]:
    """A program that leaves a file behind if the worker ever runs it."""
    return [sys.executable, "-c", f"open({str(marker)!r}, 'w').write('ran')"]


def call_payload(profile_hash: str, tool: str, rogue_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "run_id": rogue_id,
        "tenant_id": "demo",
        "ticket_id": "T-1042",
        "tool_use_id": "toolu_rogue",
        "idempotency_key": f"{rogue_id}:{tool}",
        "profile_hash": profile_hash,
        "agent_name": AGENT,
        "server_name": "warranty",
        "tool": tool,
        "arguments": {"order_id": "C-1042"},
        **extra,
    }


async def rogue(
    env: WorkflowEnvironment, engine: Engine, profiles: LoadedProfiles, calls: list[list[Any]]
) -> tuple[str, list[str]]:
    """Run the rogue's calls against a signoff worker that loaded `profiles`."""
    signoff_queue, rogue_queue = f"signoff-{uuid.uuid4()}", f"rogue-{uuid.uuid4()}"
    rogue_id = f"rogue-{uuid.uuid4()}"
    parts = store_parts(engine, FakeModel(), profiles=profiles)
    async with (
        Worker(env.client, task_queue=signoff_queue, activities=worker_activities(parts)),
        Worker(env.client, task_queue=rogue_queue, workflows=[RogueCalls]),
    ):
        said: list[str] = await env.client.execute_workflow(
            RogueCalls.run,
            args=[signoff_queue, [[name, fill(payload, rogue_id)] for name, payload in calls]],
            id=rogue_id,
            task_queue=rogue_queue,
        )
    return rogue_id, said


def fill(payload: Any, rogue_id: str) -> Any:
    """The rogue's own workflow id where a payload says ROGUE (it is known only now)."""
    if isinstance(payload, dict):
        return {key: fill(value, rogue_id) for key, value in payload.items()}
    if isinstance(payload, list):
        return [fill(value, rogue_id) for value in payload]
    return payload.replace("ROGUE", rogue_id) if isinstance(payload, str) else payload


def refusals(engine: Engine, rogue_id: str) -> list[str]:
    with use_session(engine) as session:
        return list(
            session.scalars(
                select(DecisionRow.reason)
                .where(DecisionRow.kind == "refused", DecisionRow.reason.contains(rogue_id))
                .order_by(DecisionRow.seq)
            )
        )


async def test_a_rogue_runs_no_program_and_no_irreversible_mcp_tool(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    mcp_server: RunningServer,
    tmp_path: Path,
) -> None:
    pin = pin_of(await fetch_advertised(declared(url=mcp_server.url), TIMEOUT_SECONDS))
    team = held_profile(declared(url=mcp_server.url, pin=pin))
    marker = tmp_path / "ran"
    evil_server = {"command": attacker_program(marker), "pin": "0" * 64, "tools": {}}
    relabelled = {
        "url": mcp_server.url,
        "pin": pin,
        "tools": {"create_return_label": {"risk": "read"}},
    }
    before = len(calls(mcp_server.state))
    rogue_id, said = await rogue(
        time_skipping_env,
        seeded_engine,
        team,
        [
            # The shapes the activities once took: a declaration in the input.
            [RESOLVE_MCP_TOOLS_ACTIVITY, {"servers": {"evil": evil_server}}],
            [
                RUN_MCP_TOOL_ACTIVITY,
                {
                    **call_payload(team.content_hash, "create_return_label", "ROGUE"),
                    "server": relabelled,
                },
            ],
            [
                RUN_MCP_TOOL_ACTIVITY,
                {**call_payload(team.content_hash, "x", "ROGUE"), "server": evil_server},
            ],
            # Names, as the activities take them now.
            [RESOLVE_MCP_TOOLS_ACTIVITY, {"profile_hash": NOT_HELD, "agent_name": AGENT}],
            [RUN_MCP_TOOL_ACTIVITY, call_payload(NOT_HELD, "lookup_warranty", "ROGUE")],
            [
                RUN_MCP_TOOL_ACTIVITY,
                call_payload(team.content_hash, "create_return_label", "ROGUE"),
            ],
        ],
    )

    old_resolve, old_relabel, old_evil, not_held, not_held_call, as_read = said
    for old in (old_resolve, old_relabel, old_evil):
        # The payload is not a call the activity takes: refused before any code of ours.
        assert ": failed " in old and "answered" not in old
    assert not marker.exists()  # the attacker's program never ran
    assert not_held == "resolve_mcp_tools: failed ProfileNotHeld"
    assert not_held_call == "run_mcp_tool: failed ProfileNotHeld"
    assert as_read.startswith("run_mcp_tool: answered ")
    assert '"is_error": true' in as_read and "is irreversible" in as_read
    # The team's server was never asked to act: no call, no label.
    assert len(calls(mcp_server.state)) == before
    assert [label for label in labels(mcp_server.state) if rogue_id in label["key"]] == []
    # Each refusal by name is on the audit, naming the workflow that called.
    refused = refusals(seeded_engine, rogue_id)
    assert len(refused) == 2
    assert "does not hold the profile" in refused[0]
    assert "warranty__create_return_label" in refused[1] and "is irreversible" in refused[1]
    assert all(f"called by workflow '{rogue_id}'" in reason for reason in refused)


def reply_action(rogue_id: str) -> PendingAction:
    now = datetime.now(UTC)
    action = PendingAction(
        action_hash="",
        tool_use_id="toolu_rogue",
        tool="send_reply",
        arguments={"text": "Your refund was approved."},
        targets={"tenant_id": "demo", "ticket_id": "T-1042"},
        reason="",
        policy_version="v1",
        state=NO_STATE,
        state_hash=state_hash(NO_STATE),
        mode="confirm",
        required_approvals=1,
        requested_at=now,
        expires_at=now + timedelta(hours=1),
    )
    return action.model_copy(update={"action_hash": recomputed_hash(action, rogue_id)})


async def test_a_rogue_sends_no_automatic_reply(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    builtin = load_profile_file(BUILTIN_PROFILES, builtin=True)
    # The built-in profile sends replies without a reviewer: nothing to verify but the caller.
    assert builtin.profiles.agent().policy("send_reply").approval == "auto"
    rogue_id = f"rogue-{uuid.uuid4()}"
    action = reply_action(rogue_id)
    command = ToolActionCommand(
        run_id=rogue_id,
        tenant_id="demo",
        ticket_id="T-1042",
        idempotency_key=effect_key(rogue_id, "send_reply", action.action_hash),
        action=action,
        # Names copied from a real run's history: the worker holds that profile.
        profile_hash=builtin.content_hash,
        agent_name=builtin.profiles.default_agent,
    )
    payload = command.model_dump(mode="json")
    signoff_queue, rogue_queue = f"signoff-{uuid.uuid4()}", f"rogue-{uuid.uuid4()}"
    parts = store_parts(seeded_engine, FakeModel(), profiles=builtin)
    async with (
        Worker(
            time_skipping_env.client,
            task_queue=signoff_queue,
            activities=worker_activities(parts),
        ),
        Worker(time_skipping_env.client, task_queue=rogue_queue, workflows=[RogueCalls]),
    ):
        (said,) = await time_skipping_env.client.execute_workflow(
            RogueCalls.run,
            args=[signoff_queue, [[EXECUTE_TOOL_ACTION_ACTIVITY, payload]]],
            id=rogue_id,
            task_queue=rogue_queue,
        )
    assert said.startswith("execute_tool_action: answered ")
    assert '"status": "refused"' in said and "is not one of signoff's runs" in said
    with use_session(seeded_engine) as session:
        sent = list(session.scalars(select(CustomerReply)))
    assert sent == []
    (refused,) = refusals(seeded_engine, rogue_id)
    assert "an effect without a reviewer's approval runs only for a call the model" in refused
