"""A refund a standing rule approved leaves no trace among the requests that wait
(time-skipping server, real store, no reconcile loop: nothing mends the read model
after the run): it is not in the inbox's pages (the inbox, `signoff pending`), and a
batch that names it finds it gone. The effect that spends the rule's use takes the row
away in its own transaction, even when the run's own record of the approval never
reaches the store. And a shadow rule that covers the same refund says nothing about a
reviewer deciding, since none does."""

from __future__ import annotations

from sqlalchemy import Engine, select
from temporalio import activity
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from activities.decisions import DecisionActivities
from activities.store import list_refunds
from activities.store.database import use_session
from activities.store.schema import WaitingAction
from signoff.service.batch_decisions import BatchKey
from signoff.service.batch_selection import read_selection
from signoff.service.handles import Store
from signoff.service.waiting_listing import read_pending_page
from tests.rules import make_rule
from tests.workflow.approvals import TEST_KEYS, TEST_SIGNER, gate_run
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from tests.workflow.test_standing_rules import TICKET, audit_kinds, refund
from workflows.actions import RECORD_DECISION_ACTIVITY, DecisionEvent
from workflows.contracts import RunOutcome


class FailingAudit(DecisionActivities):
    """An audit writer that never writes: every record the run sends it fails."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine, TEST_KEYS)

    @activity.defn(name=RECORD_DECISION_ACTIVITY)
    async def record_decision(self, event: DecisionEvent) -> int:
        # Non-retryable: the same as every attempt failing, without waiting for them.
        raise ApplicationError("the audit is down", non_retryable=True)


def waiting_rows(engine: Engine, run_id: str) -> list[str]:
    with use_session(engine) as session:
        return list(
            session.scalars(select(WaitingAction.action_hash).where(WaitingAction.run_id == run_id))
        )


def assert_waits_nowhere(engine: Engine, run_id: str, action_hash: str) -> None:
    assert waiting_rows(engine, run_id) == []
    listed = read_pending_page(Store(engine), "demo", 100)
    assert [item.run_id for item in listed.page.items if item.run_id == run_id] == []
    selection = read_selection(Store(engine), "demo", [BatchKey(run_id, action_hash)])
    assert (selection.found, selection.gone) == ([], [BatchKey(run_id, action_hash)])


async def test_a_rule_approved_refund_never_waits_and_a_shadow_rule_stays_silent(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    rule = make_rule(seeded_engine, TEST_SIGNER, max_amount="50.00")
    make_rule(seeded_engine, TEST_SIGNER, max_amount="50.00", shadow=True)
    async with gate_run(
        time_skipping_env, refund("20.00"), seeded_engine, ticket_id=TICKET
    ) as handle:
        outcome = await handle.result()
    await replay(handle)

    assert isinstance(outcome, RunOutcome) and outcome.status == "completed"
    (record,) = outcome.decisions  # no "a reviewer decides" beside it
    assert (record.kind, record.reason) == (
        "rule_approved",
        f"approved by standing rule {rule.id} (created by admin)",
    )
    assert_waits_nowhere(seeded_engine, handle.id, record.action_hash)


async def test_the_rules_use_takes_the_request_out_of_the_inbox_without_the_runs_record(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    rule = make_rule(seeded_engine, TEST_SIGNER, max_amount="50.00")
    model = FakeModel().enqueue(
        tool_reply(("refund", {"amount": "20.00", "reason": "The lamp arrived dented."})),
        text_reply("Done."),
    )
    async with gate_run(
        time_skipping_env, model, seeded_engine, ticket_id=TICKET, audit=FailingAudit(seeded_engine)
    ) as handle:
        outcome = await handle.result()

    assert isinstance(outcome, RunOutcome)
    (record,) = outcome.decisions
    assert record.kind == "rule_approved"
    (made,) = list_refunds(seeded_engine, "demo", "C-2210")
    assert made.approver_list == [f"rule:{rule.id}"]
    # The run's record never reached the store; the rule's use, and its effect, did.
    assert audit_kinds(seeded_engine, handle.id) == ["rule_used", "executed"]
    assert_waits_nowhere(seeded_engine, handle.id, record.action_hash)
