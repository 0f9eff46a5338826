"""No effect without its approval on the record, for any irreversible tool (time-skipping
server, real gateway, effect and store): with the run's audit writer failing every
record, the team's `issue_voucher` still has its approval written to the audit, by the
effect's own claim transaction, before its `executed` row; the audit's chain holds."""

from __future__ import annotations

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.store.decision_queries import AuditQuery, audit_rows
from tests.tools import team_tools
from tests.workflow.approvals import decide, decision, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from tests.workflow.test_python_tools import TEAM, VOUCHER, on_profile
from tests.workflow.test_rule_inbox import FailingAudit
from workflows.contracts import RunOutcome


def audit_of(engine: Engine, run_id: str) -> list[tuple[str, str | None]]:
    rows = audit_rows(engine, AuditQuery(tenant_id="demo"), batch=500)
    return [(row.kind, row.reviewer_id) for row in reversed(rows) if row.run_id == run_id]


async def test_the_effect_writes_the_approval_the_audit_writer_could_not(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    team_tools.VOUCHERS.clear()
    model = FakeModel().enqueue(tool_reply(VOUCHER), text_reply("A voucher is on its way."))
    async with gate_run(
        time_skipping_env,
        model,
        seeded_engine,
        audit=FailingAudit(seeded_engine),
        **on_profile(TEAM),
    ) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert isinstance(outcome, RunOutcome) and outcome.status == "completed"
    assert len(team_tools.VOUCHERS) == 1
    assert [d.kind for d in outcome.decisions] == ["approved"]
    assert audit_of(seeded_engine, handle.id) == [("approved", "alice"), ("executed", None)]
