"""A reviewer's response ("respond": words to the agent instead of a decision) works the
same for every kind of tool, not only the refund (tests/workflow/test_respond.py).

Over `send_reply` (a reviewed reply), a team's Python tool (`issue_voucher`) and an MCP
tool (`shop__issue_voucher`), on the scenario and fixtures of test_every_tool_kind: the
pending action is superseded (nothing waits, in the run or in the inbox's read model),
no effect happens, the audit holds one `responded` row that `audit verify` accepts (the
chain and the reviewer's signed proof), and the model's next turn reads the words as
the reviewer's instruction, not as a rejection.
"""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from activities.store.audit_proofs import unproven_decisions
from activities.store.database import use_session
from activities.store.decision_chain import verify_chain
from activities.store.schema import DecisionRow, WaitingAction
from signoff.config.data_converter import data_converter
from signoff.config.decision_signatures import AuditKeys
from signoff.config.profiles import LoadedProfiles
from tests.mcp.conftest import RunningServer
from tests.mcp.test_every_tool_kind import (  # noqa: F401  (the fixtures)
    KINDS,
    effects_made,
    no_vouchers_yet,
    profiles,
    shop,
)
from tests.workflow.approvals import (
    TEST_KEYS,
    audit_caught_up,
    decide,
    decision,
    gate_run,
    pending_actions,
)
from tests.workflow.fakes import FakeModel, text_reply, tool_reply
from tests.workflow.test_python_tools import on_profile, tool_results
from workflows.agent_run import AgentRun
from workflows.sandbox import workflow_runner

pytestmark = pytest.mark.slow
WORDS = "Ask whether the customer prefers a replacement first"
# The refund's own response is tests/workflow/test_respond.py's.
RESPONDED_KINDS = ["send_reply", "python", "mcp"]


@pytest.mark.parametrize("kind", RESPONDED_KINDS)
async def test_a_response_supersedes_any_tools_action_and_reaches_the_model(
    kind: str,
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    profiles: LoadedProfiles,  # noqa: F811
    shop: RunningServer,  # noqa: F811
) -> None:
    model = FakeModel().enqueue(tool_reply(KINDS[kind].call), text_reply("I will ask first."))
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(profiles)) as handle:
        (action,) = await pending_actions(handle)
        answer = await decide(
            handle, decision(seeded_engine, "alice", action.action_hash, "respond", WORDS)
        )
        assert answer.status == "responded"
        outcome = await handle.result()
        state = await handle.query(AgentRun.state)
        await audit_caught_up(handle, seeded_engine)
        history = await handle.fetch_history()

    assert outcome.status == "completed"
    assert state.pending_actions == []
    assert effects_made(kind, seeded_engine, shop, handle.id) == 0
    (result,) = tool_results(model, 1)
    assert result.is_error
    assert "A reviewer answered instead of deciding" in result.content
    assert f"The reviewer's instruction: {WORDS}." in result.content
    assert "Rejected" not in result.content and "Category" not in result.content
    with use_session(seeded_engine) as session:
        rows = list(
            session.scalars(
                select(DecisionRow).where(DecisionRow.run_id == handle.id).order_by(DecisionRow.seq)
            )
        )
        still_waiting = session.scalars(
            select(WaitingAction).where(WaitingAction.run_id == handle.id)
        ).all()
    assert [(row.kind, row.tool, row.reason) for row in rows] == [("responded", action.tool, WORDS)]
    assert rows[0].action_hash == action.action_hash and rows[0].category is None
    assert still_waiting == []
    assert verify_chain(seeded_engine, "demo").intact
    report = unproven_decisions(seeded_engine, AuditKeys(dict(TEST_KEYS.keys)), "demo")
    assert report.unproven == [] and report.checked >= 1
    replayer = Replayer(
        workflows=[AgentRun], workflow_runner=workflow_runner(), data_converter=data_converter
    )
    await replayer.replay_workflow(history)
