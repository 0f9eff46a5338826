"""A standing rule approves only what the model of a run signoff's service started
proposed (activities/rule_callers.py). Someone who reaches Temporal starts signoff's
own workflow on its task queue with a request of their own, and its model proposes a
refund or a reply the tenant's rule covers: the effect refuses the grant on the audit,
spends no use, and the action waits for a reviewer (time-skipping server, real store).
"""

from __future__ import annotations

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.store import list_refunds
from signoff.config.profiles import STRICT_PROFILES, load_profile_file
from signoff.service.handles import Store
from signoff.service.standing_rules import rules_of
from tests.rules import make_rule
from tests.store.outbox import replies_of
from tests.workflow.approvals import TEST_SIGNER, decide, decision, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from tests.workflow.test_python_tools import on_profile
from tests.workflow.test_send_reply import refusal_reasons
from tests.workflow.test_standing_rules import TICKET, refund
from workflows.contracts import RunRequest


def another_ticket(request: RunRequest) -> RunRequest:
    """The request the service recorded under the run's id: the same, for another ticket."""
    return request.model_copy(update={"ticket_id": "T-1042"})


async def test_a_run_the_service_did_not_start_cannot_spend_a_rule(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    rule = make_rule(seeded_engine, TEST_SIGNER, max_amount="50.00", max_uses=3)
    async with gate_run(
        time_skipping_env, refund("20.00"), seeded_engine, ticket_id=TICKET, recorded=False
    ) as handle:
        (action,) = await pending_actions(handle)
        assert list_refunds(seeded_engine, "demo", "C-2210") == []
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert [d.kind for d in outcome.decisions] == ["rule_approved", "voided", "approved"]
    assert "signoff's service did not start it" in outcome.decisions[1].reason
    (row,) = list_refunds(seeded_engine, "demo", "C-2210")
    assert row.approver_list == ["alice"]
    (unused,) = rules_of(Store(seeded_engine), "demo")
    assert (unused.id, unused.uses) == (rule.id, 0)
    (refused,) = refusal_reasons(seeded_engine, handle.id)
    assert f"The store knows no run '{handle.id}'" in refused
    assert "a standing rule approves only what the model of a run" in refused


async def test_a_run_started_under_a_recorded_id_with_another_request_cannot_spend_a_rule(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    """The service recorded the run for one ticket; a run under the same id starts for
    a ticket whose order the attacker wants refunded."""
    make_rule(seeded_engine, TEST_SIGNER, max_amount="50.00", max_uses=3)
    async with gate_run(
        time_skipping_env,
        refund("20.00"),
        seeded_engine,
        ticket_id=TICKET,
        recorded=another_ticket,
    ) as handle:
        (action,) = await pending_actions(handle)
        assert list_refunds(seeded_engine, "demo", "C-2210") == []
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        await handle.result()

    (row,) = list_refunds(seeded_engine, "demo", "C-2210")
    assert row.approver_list == ["alice"]
    (unused,) = rules_of(Store(seeded_engine), "demo")
    assert unused.uses == 0
    (refused,) = refusal_reasons(seeded_engine, handle.id)
    assert "did not start with the request signoff's service recorded" in refused


async def test_a_run_the_service_did_not_start_sends_no_reply_under_a_rule(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    """The same for any other tool, through its own effect: `send_reply` on the strict
    profile, which a rule without an amount covers, waits for a reviewer."""
    strict = load_profile_file(STRICT_PROFILES)
    make_rule(seeded_engine, TEST_SIGNER, tool="send_reply", max_amount=None, currency=None)
    draft = "Hello Ms Martin, your kettle ships again tomorrow."
    model = FakeModel().enqueue(tool_reply(("send_reply", {"text": draft})), text_reply("Sent."))
    overrides = {**on_profile(strict), "recorded": False}
    async with gate_run(time_skipping_env, model, seeded_engine, **overrides) as handle:
        (action,) = await pending_actions(handle)
        assert replies_of(seeded_engine, "demo", "T-1042") == []
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()

    assert [d.kind for d in outcome.decisions] == ["rule_approved", "voided", "approved"]
    (sent,) = replies_of(seeded_engine, "demo", "T-1042")
    assert sent.text == draft
    (unused,) = rules_of(Store(seeded_engine), "demo")
    assert unused.uses == 0
    (refused,) = refusal_reasons(seeded_engine, handle.id)
    assert "signoff's service did not start it" in refused
