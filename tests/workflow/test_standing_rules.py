"""Standing rules in a run (time-skipping server, real store): a covered refund is
approved by the rule and spends one use; a rule used up, revoked or in shadow mode
approves nothing and the refund waits for a reviewer; a rule never stands in for four
eyes; and a grant the effect refuses sends the action to a reviewer."""

from __future__ import annotations

import json
import uuid

from sqlalchemy import Engine
from temporalio import activity
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.refunds import RefundActivities
from activities.store import list_refunds
from activities.store.decision_queries import AuditQuery, audit_rows
from activities.store.rule_grants import match_rules
from signoff.config.profiles import BUILTIN_PROFILES, STRICT_PROFILES, load_profile_file
from signoff.service.handles import Store
from signoff.service.standing_rules import revoke, rules_of
from tests.clock import clock_now
from tests.rules import make_rule
from tests.store.outbox import replies_of
from tests.store.test_waiting_actions import an_action
from tests.workflow.approvals import (
    TEST_KEYS,
    TEST_SIGNER,
    decide,
    decision,
    gate_run,
    gate_worker,
    pending_actions,
    results_of_turn,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from tests.workflow.rogue import RoguePlan, RogueRun
from tests.workflow.test_python_tools import on_profile
from workflows.actions import (
    HOLD_PENDING_REFUND_ACTIVITY,
    ActionHold,
    DecisionEvent,
    DecisionRecord,
    PendingRefundHeld,
    PendingRefundRelease,
)
from workflows.approval_policy import recomputed_hash
from workflows.contracts import RunOutcome
from workflows.refund_commands import refund_command
from workflows.rule_contracts import RuleMatchRequest

REASON = "The lamp arrived dented."
# Ticket T-2210's order C-2210 was paid 45.00 EUR; demo's four-eyes threshold is 200.00.
TICKET = "T-2210"


def refund(amount: str) -> FakeModel:
    return FakeModel().enqueue(
        tool_reply(("refund", {"amount": amount, "reason": REASON})), text_reply("Done.")
    )


def audit_kinds(engine: Engine, run_id: str) -> list[str]:
    rows = audit_rows(engine, AuditQuery(tenant_id="demo"), batch=500)
    return [row.kind for row in reversed(rows) if row.run_id == run_id]


async def test_a_covered_refund_is_approved_by_the_rule_and_spends_one_use(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    rule = make_rule(seeded_engine, TEST_SIGNER, max_amount="50.00", max_uses=3)
    model = refund("20.00")
    async with gate_run(time_skipping_env, model, seeded_engine, ticket_id=TICKET) as handle:
        outcome = await handle.result()
    await replay(handle)

    assert isinstance(outcome, RunOutcome) and outcome.status == "completed"
    (row,) = list_refunds(seeded_engine, "demo", "C-2210")
    assert (row.amount_minor, row.approver_list) == (2000, [f"rule:{rule.id}"])
    (record,) = outcome.decisions
    assert (record.kind, record.reviewer_id) == ("rule_approved", "admin")
    assert record.reason == f"approved by standing rule {rule.id} (created by admin)"
    (result,) = results_of_turn(model.history[1])
    assert json.loads(result.content)["status"] == "refunded"
    (used,) = rules_of(Store(seeded_engine), "demo")
    assert used.uses == 1
    assert audit_kinds(seeded_engine, handle.id) == ["rule_approved", "rule_used", "executed"]


async def test_a_used_up_rule_approves_nothing_and_the_refund_waits_for_a_reviewer(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    rule = make_rule(seeded_engine, TEST_SIGNER, max_amount="50.00", max_uses=1)
    env = time_skipping_env
    async with gate_run(env, refund("20.00"), seeded_engine, ticket_id=TICKET) as first:
        await first.result()
    async with gate_run(env, refund("10.00"), seeded_engine, ticket_id=TICKET) as second:
        (action,) = await pending_actions(second)
        await decide(second, decision(seeded_engine, "alice", action.action_hash))
        outcome = await second.result()
    await replay(second)

    assert [r.approver_list for r in list_refunds(seeded_engine, "demo", "C-2210")] == [
        [f"rule:{rule.id}"],
        ["alice"],
    ]
    assert [d.kind for d in outcome.decisions] == ["approved"]
    assert rules_of(Store(seeded_engine), "demo") == []  # used up: no longer active
    (spent,) = rules_of(Store(seeded_engine), "demo", everything=True)
    assert (spent.uses, spent.state) == (1, "used up")


async def test_a_revoked_rule_approves_nothing(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    rule = make_rule(seeded_engine, TEST_SIGNER, max_amount="50.00")
    revoke(Store(seeded_engine), "admin", "demo", rule.id)
    async with gate_run(
        time_skipping_env, refund("20.00"), seeded_engine, ticket_id=TICKET
    ) as handle:
        (action,) = await pending_actions(handle)
        assert list_refunds(seeded_engine, "demo", "C-2210") == []
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()

    assert [d.kind for d in outcome.decisions] == ["approved"]
    (row,) = list_refunds(seeded_engine, "demo", "C-2210")
    assert row.approver_list == ["alice"]


async def test_a_shadow_rule_records_what_it_would_have_approved_and_a_reviewer_decides(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    rule = make_rule(seeded_engine, TEST_SIGNER, max_amount="50.00", shadow=True)
    async with gate_run(
        time_skipping_env, refund("20.00"), seeded_engine, ticket_id=TICKET
    ) as handle:
        (action,) = await pending_actions(handle)
        assert list_refunds(seeded_engine, "demo", "C-2210") == []
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    shadow, approved = outcome.decisions
    assert (shadow.kind, shadow.reviewer_id, shadow.action_hash) == (
        "rule_shadow",
        "admin",
        action.action_hash,
    )
    assert shadow.reason.startswith(f"standing rule {rule.id} would have approved this")
    assert (approved.kind, approved.reviewer_id) == ("approved", "alice")
    (row,) = list_refunds(seeded_engine, "demo", "C-2210")
    assert row.approver_list == ["alice"]
    (unused,) = rules_of(Store(seeded_engine), "demo")
    assert unused.uses == 0
    assert audit_kinds(seeded_engine, handle.id) == ["rule_shadow", "approved", "executed"]


async def test_a_rule_never_stands_in_for_four_eyes(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    # Order C-3107 was paid 310.00: a full refund is above the 200.00 threshold.
    make_rule(seeded_engine, TEST_SIGNER, max_amount="500.00")
    async with gate_run(
        time_skipping_env, refund("310.00"), seeded_engine, ticket_id="T-3107"
    ) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        await decide(handle, decision(seeded_engine, "bob", action.action_hash))
        outcome = await handle.result()

    assert (action.mode, action.required_approvals) == ("review", 2)
    assert [d.reviewer_id for d in outcome.decisions] == ["alice", "bob"]
    (unused,) = rules_of(Store(seeded_engine), "demo")
    assert unused.uses == 0


class RevokedMeanwhile(RefundActivities):
    """The store's match, made by the refund's hold, after which the rule is revoked
    before the effect runs: the answer the run got is stale by the time its effect
    checks the grant."""

    def __init__(self, engine: Engine, rule_id: str) -> None:
        super().__init__(engine, TEST_KEYS, profiles=load_profile_file(BUILTIN_PROFILES).profiles)
        self._engine_for_revoke = engine
        self._rule_id = rule_id

    @activity.defn(name=HOLD_PENDING_REFUND_ACTIVITY)
    async def hold_pending_refund(self, hold: ActionHold) -> PendingRefundHeld:
        held = await super().hold_pending_refund(hold)
        if held.rules.grant is not None:
            revoke(Store(self._engine_for_revoke), "admin", "demo", self._rule_id)
        return held


async def test_a_grant_the_effect_refuses_sends_the_refund_to_a_reviewer(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    rule = make_rule(seeded_engine, TEST_SIGNER, max_amount="50.00")
    refunds = RevokedMeanwhile(seeded_engine, rule.id)
    async with gate_run(
        time_skipping_env, refund("20.00"), seeded_engine, refunds=refunds, ticket_id=TICKET
    ) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    assert [d.kind for d in outcome.decisions] == ["rule_approved", "voided", "approved"]
    assert f"{rule.id} was revoked by admin" in outcome.decisions[1].reason
    assert action.supersedes == outcome.decisions[0].action_hash
    (row,) = list_refunds(seeded_engine, "demo", "C-2210")
    assert row.approver_list == ["alice"]
    assert "refused" in audit_kinds(seeded_engine, handle.id)


async def test_a_rule_approves_another_irreversible_tool_through_its_own_effect(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    """`send_reply` on the strict profile (one reviewer confirms it) has no amount: a
    rule without one covers it, and the tool's effect checks and spends it."""
    strict = load_profile_file(STRICT_PROFILES)
    rule = make_rule(seeded_engine, TEST_SIGNER, tool="send_reply", max_amount=None, currency=None)
    draft = "Hello Ms Martin, your kettle ships again tomorrow."
    model = FakeModel().enqueue(tool_reply(("send_reply", {"text": draft})), text_reply("Sent."))
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(strict)) as handle:
        outcome = await handle.result()
    await replay(handle)

    (sent,) = replies_of(seeded_engine, "demo", "T-1042")
    assert sent.text == draft
    assert [d.kind for d in outcome.decisions] == ["rule_approved"]
    assert audit_kinds(seeded_engine, handle.id) == ["rule_approved", "rule_used", "executed"]
    executed = audit_rows(seeded_engine, AuditQuery(tenant_id="demo"), batch=500)[0]
    assert executed.reason == f"send_reply carried out, approved by rule:{rule.id}"


async def test_a_workflow_of_someone_elses_cannot_spend_a_rule(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    """A rule names no run, so its grant alone would let anyone who reaches the Temporal
    frontend refund under it from a workflow of their own: the effect asks Temporal who
    called, and refuses anything but signoff's own run on signoff's task queue."""
    env = time_skipping_env
    rule = make_rule(seeded_engine, TEST_SIGNER, max_amount="50.00")
    rogue_id = f"run-demo-rogue{uuid.uuid4().hex[:8]}"  # any id it likes
    unhashed = an_action(seeded_engine, "0" * 64, 2000, TICKET)
    action = unhashed.model_copy(update={"action_hash": recomputed_hash(unhashed, rogue_id)})
    request = RuleMatchRequest(run_id=rogue_id, tenant_id="demo", ticket_id=TICKET, action=action)
    grant = match_rules(seeded_engine, request, TEST_KEYS, clock_now()).grant
    assert grant is not None and grant.rule_id == rule.id  # the grant is readable
    command = refund_command(
        action.model_copy(update={"rule_grant": grant}),
        [],
        run_id=rogue_id,
        ticket_id=TICKET,
        actor_id=None,
    )
    elsewhere = PendingRefundRelease(run_id="run-demo-other", action_hash=action.action_hash)
    plan = RoguePlan(
        signoff_queue=(queue := f"signoff-{uuid.uuid4()}"),
        command=command,
        release=elsewhere,
        record=DecisionEvent(
            run_id="run-demo-other",
            tenant_id="demo",
            ticket_id=TICKET,
            sequence=0,
            record=DecisionRecord(
                action_hash=action.action_hash, kind="rule_approved", at=clock_now()
            ),
        ),
    )
    rogue_queue = f"rogue-{uuid.uuid4()}"
    async with gate_worker(env, FakeModel(), seeded_engine, queue):
        async with Worker(env.client, task_queue=rogue_queue, workflows=[RogueRun]):
            said = await env.client.execute_workflow(
                RogueRun.run, plan, id=rogue_id, task_queue=rogue_queue
            )

    assert said[0].startswith("refund: approver_invalid: ")
    assert "is not one of signoff's runs" in said[0]
    assert list_refunds(seeded_engine, "demo", "C-2210") == []
    (untouched,) = rules_of(Store(seeded_engine), "demo")
    assert untouched.uses == 0
    assert audit_kinds(seeded_engine, rogue_id) == ["refused"]
