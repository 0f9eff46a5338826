"""Every decision of a run reaches the store's audit table, in the order of its trail,
through the `record_decision` activity (and the executed refund through its own
transaction), and the tenant's chain stays intact."""

from __future__ import annotations

import asyncio
import time

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment

from activities.store.database import use_session
from activities.store.decision_chain import verify_chain
from activities.store.schema import DecisionRow
from tests.workflow.approvals import (
    WAIT_SECONDS,
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from tests.workflow.test_approvals_state_change import another_refund

REFUND = ("refund", {"amount": "89.90", "reason": "The vase arrived broken."})
FOUR_EYES_REFUND = ("refund", {"amount": "310.00", "reason": "The table arrived broken."})


def audited(engine: Engine, run_id: str) -> list[tuple[str, str | None]]:
    with use_session(engine) as session:
        rows = session.scalars(
            select(DecisionRow).where(DecisionRow.run_id == run_id).order_by(DecisionRow.seq)
        )
        return [(row.kind, row.reviewer_id) for row in rows]


async def audited_when(engine: Engine, run_id: str, count: int) -> list[tuple[str, str | None]]:
    deadline = time.monotonic() + WAIT_SECONDS
    while len(rows := audited(engine, run_id)) < count:
        assert time.monotonic() < deadline, rows
        await asyncio.sleep(0.05)
    return rows


async def test_four_eyes_first_approval_is_audited_while_the_run_waits(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(FOUR_EYES_REFUND), text_reply("Refunded."))
    async with gate_run(time_skipping_env, model, seeded_engine, ticket_id="T-3107") as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        halfway = await audited_when(seeded_engine, handle.id, 1)
        await decide(handle, decision(seeded_engine, "bob", action.action_hash))
        await handle.result()
    await replay(handle)

    assert halfway == [("first_approval", "alice")]
    assert audited(seeded_engine, handle.id) == [
        ("first_approval", "alice"),
        ("approved", "bob"),
        ("executed", None),
    ]
    [refund] = [row for row in refunded(seeded_engine, "C-3107")]
    assert str(refund) == "310.00"
    assert verify_chain(seeded_engine, "demo").intact


async def test_a_rejection_is_audited(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("No refund."))
    async with gate_run(time_skipping_env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        no = decision(seeded_engine, "bob", action.action_hash, "reject", reason="no photo")
        await decide(handle, no)
        await handle.result()
    await replay(handle)
    assert audited(seeded_engine, handle.id) == [("rejected", "bob")]


async def test_void_and_policy_denial_are_audited(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("A colleague will follow up."))
    async with gate_run(time_skipping_env, model, seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        another_refund(seeded_engine, 1000)  # audited as executed, under no run of ours
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        await handle.result()
    await replay(handle)
    assert audited(seeded_engine, handle.id) == [
        ("approved", "alice"),
        ("voided", None),
        ("denied", None),
    ]
    assert verify_chain(seeded_engine).intact


async def test_expiry_is_audited(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("A colleague will call."))
    async with gate_run(
        time_skipping_env, model, seeded_engine, approval_ttl_seconds=600
    ) as handle:
        await handle.result()  # the test server skips to the expiry
    await replay(handle)
    assert audited(seeded_engine, handle.id) == [("expired", None)]


async def test_cancel_while_waiting_is_audited(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    # Its own server, as every cancel-while-waiting test (test_approvals_unanswered.py).
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Never asked."))
    async with gate_run(isolated_env, model, seeded_engine) as handle:
        await pending_actions(handle)
        await handle.cancel()
        await handle.result()
    await replay(handle)
    assert audited(seeded_engine, handle.id) == [("cancelled", None)]
