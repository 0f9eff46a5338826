"""A run publishes what waits for a decision in its memo, which the inbox lists from
visibility without querying each run: the memo follows the pending actions as they
arrive, gather approvals, and are decided."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from tests.workflow.approvals import decide, decision, gate_run, pending_actions, state_when
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.contracts import INBOX_MEMO_KEY, InboxMemo

REFUND = ("refund", {"amount": "310.00", "reason": "The lamp arrived broken."})


async def published(handle: WorkflowHandle[Any, Any]) -> InboxMemo:
    description = await handle.describe()
    memo: InboxMemo = await description.memo_value(INBOX_MEMO_KEY, type_hint=InboxMemo)
    return memo


async def test_the_memo_follows_the_pending_action(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded."))
    # C-3107 was paid 310.00, above the review threshold: two approvals are needed.
    async with gate_run(env, model, seeded_engine, ticket_id="T-3107") as handle:
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
