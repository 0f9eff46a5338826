"""A run publishes its pending actions and decisions in its memo, which the inbox and the
audit list from visibility without querying each run: the memo is there from the start,
and follows the pending actions as they arrive, gather approvals and are decided, and
the decisions, a policy denial included."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import Engine
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from tests.workflow.approvals import (
    WAIT_SECONDS,
    decide,
    decision,
    gate_run,
    pending_actions,
    state_when,
)
from tests.workflow.fakes import FakeModel, Gate, replay, text_reply, tool_reply
from workflows.contracts import HISTORY_MARKED, RUN_MEMO_KEY, RunMemo

REFUND = ("refund", {"amount": "310.00", "reason": "The lamp arrived broken."})


async def published(handle: WorkflowHandle[Any, Any]) -> RunMemo:
    description = await handle.describe()
    memo: RunMemo = await description.memo_value(RUN_MEMO_KEY, type_hint=RunMemo)
    return memo


async def test_the_memo_follows_the_pending_action(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded."))
    # C-3107 was paid 310.00, above the review threshold: two approvals are needed.
    async with gate_run(
        env, model, seeded_engine, ticket_id="T-3107", history=HISTORY_MARKED
    ) as handle:
        (action,) = await pending_actions(handle)
        waiting = await published(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        after_one = await published(handle)
        await decide(handle, decision(seeded_engine, "bob", action.action_hash))
        await state_when(handle, lambda s: s.outcome is not None, "finished")
        after_both = await published(handle)
        await handle.result()
    await replay(handle)

    assert waiting.ticket_id == "T-3107"
    assert waiting.pending_actions == [action]
    (still,) = after_one.pending_actions
    assert still.action_hash == action.action_hash
    assert [a.reviewer_id for a in still.approvals] == ["alice"]
    assert after_both.pending_actions == []
    assert after_both.decisions is not None
    assert [(d.kind, d.reviewer_id) for d in after_both.decisions] == [
        ("approved", "alice"),
        ("approved", "bob"),
    ]


async def test_the_memo_is_there_from_the_start_and_records_a_denial(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    too_much = ("refund", {"amount": "500.00", "reason": "Everything back."})
    thinking, answered = Gate(), Gate()
    model = FakeModel().enqueue(
        thinking, tool_reply(too_much), answered, text_reply("A colleague will follow up.")
    )
    async with gate_run(env, model, seeded_engine, history=HISTORY_MARKED) as handle:
        await asyncio.wait_for(thinking.reached.wait(), WAIT_SECONDS)
        at_start = await published(handle)
        thinking.open()
        await asyncio.wait_for(answered.reached.wait(), WAIT_SECONDS)
        after_denial = await published(handle)
        answered.open()
        await handle.result()
    await replay(handle)

    assert (at_start.ticket_id, at_start.pending_actions, at_start.decisions) == (
        "T-1042",
        [],
        [],
    )
    assert after_denial.pending_actions == []
    assert after_denial.decisions is not None
    (denied,) = after_denial.decisions
    assert (denied.kind, denied.order_id, denied.amount) == ("denied", "C-1042", "500.00")
