"""A tool's `call_timeout` (its profile's policy) is how long Temporal lets each attempt
of its calls run, on the time-skipping server: a read tool's call, an irreversible
tool's effect and the refund's each get their tool's own; a tool without one keeps the
engine's default. The history's scheduling events are what the server enforces.
(The MCP path: tests/e2e/test_mcp_crash.py, whose retry comes after its tool's.)
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from sqlalchemy import Engine
from temporalio.api.enums.v1 import EventType
from temporalio.testing import WorkflowEnvironment

from signoff.config.profiles import LoadedProfiles, load_profile_file
from tests.tools import team_tools
from tests.workflow.approvals import decide, decision, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, text_reply, tool_reply
from tests.workflow.test_python_tools import TEAM_PROFILE, VOUCHER, on_profile
from workflows import policy
from workflows.actions import EXECUTE_REFUND_ACTIVITY, EXECUTE_TOOL_ACTION_ACTIVITY
from workflows.contracts import RUN_TOOL_ACTIVITY
from workflows.gate_store import REFUND_CALL_TIMEOUT

REFUND = ("refund", {"amount": "19.90", "reason": "The lid arrived cracked."})
TIMEOUTS = {"lookup_stock": "5m", "issue_voucher": "2m", "refund": "45s"}


def timed_profile(tmp_path: Path, timeouts: dict[str, str]) -> LoadedProfiles:
    """The team's profile with a `call_timeout` for each tool of `timeouts`."""
    text = TEAM_PROFILE.read_text()
    for tool, timeout in timeouts.items():
        header = f"[agents.support.tool_policy.{tool}]\n"
        assert header in text
        text = text.replace(header, f'{header}call_timeout = "{timeout}"\n')
    path = tmp_path / "team.toml"
    path.write_text(text)
    return load_profile_file(path)


def attempt_timeouts(history: object, activity: str) -> list[timedelta]:
    """Each scheduling of `activity`'s start-to-close timeout, in order."""
    return [
        event.activity_task_scheduled_event_attributes.start_to_close_timeout.ToTimedelta()
        for event in history.events  # type: ignore[attr-defined]
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == activity
    ]


async def run_and_approve(
    env: WorkflowEnvironment, engine: Engine, profiles: LoadedProfiles
) -> object:
    """A run that reads stock and the order, then asks for a voucher and a refund, each
    approved; its history."""
    team_tools.VOUCHERS.clear()
    team_tools.CALLS.clear()
    model = FakeModel().enqueue(
        tool_reply(("lookup_stock", {"sku": "KET-1"}), ("get_order", {})),
        tool_reply(VOUCHER),
        tool_reply(REFUND),
        text_reply("A voucher and a refund are on their way."),
    )
    async with gate_run(env, model, engine, **on_profile(profiles)) as handle:
        for _ in range(2):
            (action,) = await pending_actions(handle)
            approved = await decide(handle, decision(engine, "alice", action.action_hash))
            assert approved.status == "approved"
        outcome = await handle.result()
        history = await handle.fetch_history()
    assert outcome.status == "completed", outcome
    return history


async def test_each_tool_s_calls_get_its_call_timeout_and_the_others_the_default(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    history = await run_and_approve(
        time_skipping_env, seeded_engine, timed_profile(tmp_path, TIMEOUTS)
    )
    # lookup_stock's read, then get_order's (no call_timeout: the engine's default).
    assert attempt_timeouts(history, RUN_TOOL_ACTIVITY) == [
        timedelta(minutes=5),
        policy.TOOL_CALL_TIMEOUT,
    ]
    assert attempt_timeouts(history, EXECUTE_TOOL_ACTION_ACTIVITY) == [timedelta(minutes=2)]
    assert attempt_timeouts(history, EXECUTE_REFUND_ACTIVITY) == [timedelta(seconds=45)]


async def test_without_call_timeouts_every_call_keeps_the_engine_s_defaults(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    history = await run_and_approve(time_skipping_env, seeded_engine, timed_profile(tmp_path, {}))
    assert attempt_timeouts(history, RUN_TOOL_ACTIVITY) == [policy.TOOL_CALL_TIMEOUT] * 2
    assert attempt_timeouts(history, EXECUTE_TOOL_ACTION_ACTIVITY) == [policy.TOOL_CALL_TIMEOUT]
    assert attempt_timeouts(history, EXECUTE_REFUND_ACTIVITY) == [REFUND_CALL_TIMEOUT]
