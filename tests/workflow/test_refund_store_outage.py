"""The store goes away around a refund's commit, then comes back: Temporal retries the
refund with the same idempotency key, and the retry answers from the row the first
attempt committed. One refund, reported as done, never a second one.

The quick form of `python -m bench.chaos`'s store outage (issue 13, "Fault injection"), on
the time-skipping server: the ledger commits, then its connection drops with the error
SQLAlchemy raises for it (OperationalError, which the store calls transient), for the
first attempts only.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError
from temporalio import activity
from temporalio.testing import WorkflowEnvironment

from activities.refunds import RefundActivities
from activities.store import list_refunds
from tests.workflow.approvals import TEST_KEYS, decide, decision, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.actions import EXECUTE_REFUND_ACTIVITY, RefundCommand, RefundResult
from workflows.contracts import RunOutcome

REFUND = ("refund", {"amount": "10.00", "reason": "The vase arrived broken."})
LOST_ANSWERS = 3  # attempts whose commit happened but whose answer was lost


class StoreDroppingAfterCommit(RefundActivities):
    def __init__(self, engine: Engine) -> None:
        super().__init__(engine, TEST_KEYS)
        self.answers: list[RefundResult] = []

    @activity.defn(name=EXECUTE_REFUND_ACTIVITY)
    async def execute_refund(self, command: RefundCommand) -> RefundResult:
        result = await super().execute_refund(command)  # commits, or finds its own row
        self.answers.append(result)
        if len(self.answers) <= LOST_ANSWERS:
            raise OperationalError("COMMIT", {}, Exception("server closed the connection"))
        return result


# Slow: the three lost answers wait out the default backoff (1 + 2 + 4 s) in real time.
@pytest.mark.slow
async def test_a_refund_whose_answer_the_store_lost_is_retried_by_its_key_not_repeated(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Your refund is on its way."))
    ledger = StoreDroppingAfterCommit(seeded_engine)
    async with gate_run(time_skipping_env, model, seeded_engine, refunds=ledger) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
    await replay(handle)

    (row,) = list_refunds(seeded_engine, "demo", "C-1042")
    assert row.amount == Decimal("10.00")
    assert row.idempotency_key == f"{handle.id}:refund:{action.action_hash}"
    # Every attempt, the first that committed and the retries, answered with that row.
    assert len(ledger.answers) == LOST_ANSWERS + 1
    assert {(a.status, a.refund_id) for a in ledger.answers} == {("refunded", row.id)}
    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, outcome.reason) == ("completed", "answered")
    assert outcome.effects_performed == [f"refund 10.00 EUR on order C-1042 (refund {row.id})"]
    assert outcome.effects_unknown == []
