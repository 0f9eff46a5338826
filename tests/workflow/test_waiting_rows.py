"""The inbox's read model follows a real run (time-skipping server, real store): the
row appears when the refund starts to wait, with what the run's `state` query shows; a
four-eyes action's first approval shows in it; and it goes when the wait ends (a second
approval, a rejection). The run's history gets no event for it: the rows are written by
the hold and the audit activities the run already calls."""

from __future__ import annotations

import asyncio
import time

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment

from activities.store.database import use_session
from activities.store.schema import WaitingAction
from tests.workflow.approvals import (
    POLL_SECONDS,
    WAIT_SECONDS,
    decide,
    decision,
    gate_run,
    pending_actions,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.actions import PendingAction
from workflows.agent_run import AgentRun


def refund(amount: str) -> tuple[str, dict[str, str]]:
    return ("refund", {"amount": amount, "reason": "The espresso machine leaks."})


def rows_of(engine: Engine, run_id: str) -> list[WaitingAction]:
    with use_session(engine) as session:
        return list(session.scalars(select(WaitingAction).where(WaitingAction.run_id == run_id)))


async def rows_when(engine: Engine, run_id: str, given: int | None) -> list[WaitingAction]:
    """The run's rows once they hold `given` approvals (None: once there are none)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        rows = rows_of(engine, run_id)
        if (given is None and not rows) or [row.approvals_given for row in rows] == [given]:
            return rows
        assert time.monotonic() < deadline, [(row.approvals_given, row.mode) for row in rows]
        await asyncio.sleep(POLL_SECONDS)


async def test_a_four_eyes_refund_shows_its_first_approval_and_leaves_when_approved(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(refund("250.00")), text_reply("Refunded."))
    async with gate_run(time_skipping_env, model, seeded_engine, ticket_id="T-3107") as handle:
        (action,) = await pending_actions(handle)
        (row,) = await rows_when(seeded_engine, handle.id, 0)
        assert (row.tenant_id, row.ticket_id, row.order_id) == ("demo", "T-3107", "C-3107")
        assert (row.amount_minor, row.currency, row.mode) == (25_000, "EUR", "review")
        assert (row.approvals_required, row.expires_at) == (2, action.expires_at)
        assert PendingAction.model_validate_json(row.action) == action

        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        (row,) = await rows_when(seeded_engine, handle.id, 1)
        (now_waiting,) = (await handle.query(AgentRun.state)).pending_actions
        assert PendingAction.model_validate_json(row.action) == now_waiting

        await decide(handle, decision(seeded_engine, "bob", action.action_hash))
        await handle.result()
        await rows_when(seeded_engine, handle.id, None)
        await replay(handle)


async def test_a_rejected_refund_leaves_the_read_model(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(refund("20.00")), text_reply("Not refunded."))
    async with gate_run(time_skipping_env, model, seeded_engine, ticket_id="T-3107") as handle:
        (action,) = await pending_actions(handle)
        (row,) = await rows_when(seeded_engine, handle.id, 0)
        assert (row.mode, row.approvals_required) == ("confirm", 1)
        await decide(
            handle,
            decision(seeded_engine, "alice", action.action_hash, "reject", reason="too much"),
        )
        await handle.result()
        assert rows_of(seeded_engine, handle.id) == []
