"""A decision the run refuses without a trace is on the record: the decision service
that sent it writes the `refused` audit row, once per kind of attempt.

The run's validator refuses some decisions before they reach its history (an action
it never had, a rule of the gate); the service that authenticated the reviewer writes
who tried what and why (`signoff/service/decision_refusals.py`). Repeats add nothing,
a refusal the run recorded itself is not written twice, and a forged decision sent
straight to Temporal, which no front end authenticated, leaves nothing.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import Engine, update
from temporalio.testing import WorkflowEnvironment

from activities.store import Reviewer, write_transaction
from activities.store.decision_queries import AuditQuery, audit_rows
from signoff.service.decisions import Choice, Decider, DecisionNotAccepted, decide
from signoff.service.handles import Runs, Store
from tests.workflow.approvals import (
    TEST_SIGNER,
    UPDATE_SECONDS,
    audit_caught_up,
    decision,
    gate_run,
    pending_actions,
    refused,
    signed,
    signed_by_an_impostor,
)
from tests.workflow.fakes import FakeModel, text_reply, tool_reply
from workflows.refusal_kinds import DECISION_REFUSED, REFUSED_ON_RECORD, UNKNOWN_ACTION

APPROVER = ("refund_approver",)


def refund_model() -> FakeModel:
    call = tool_reply(("refund", {"amount": "89.90", "reason": "The vase arrived broken."}))
    return FakeModel().enqueue(call, text_reply("Done."))


def refusals(engine: Engine, run_id: str) -> list[tuple[str | None, str]]:
    """The run's `refused` audit rows in chain order: (reviewer, reason)."""
    rows = audit_rows(engine, AuditQuery(tenant_id="demo"), batch=200)  # newest first
    mine = sorted((row for row in rows if row.run_id == run_id), key=lambda row: row.seq)
    return [(row.reviewer_id, row.reason) for row in mine if row.kind == "refused"]


async def refused_by_service(
    env: WorkflowEnvironment, engine: Engine, run_id: str, decider: Decider, digest: str
) -> DecisionNotAccepted:
    with pytest.raises(DecisionNotAccepted) as caught:
        await decide(
            Runs(env.client),
            TEST_SIGNER,
            run_id,
            decider,
            digest,
            "approve",
            "",
            store=Store(engine),
        )
    return caught.value


async def test_a_refusal_the_run_keeps_no_trace_of_is_written_by_the_service_once(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    alice = Decider("alice", "demo", APPROVER)
    async with gate_run(env, refund_model(), seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        # Hashes this run never had: one row, whatever the hashes and however many.
        for digest in ("ab" * 32, "cd" * 32, "ab" * 32):
            sent = await refused_by_service(env, seeded_engine, handle.id, alice, digest)
            assert sent.kind == UNKNOWN_ACTION
        # A rule of the gate (her session claims no approver role): one row for the two.
        no_role = Decider("alice", "demo", ())
        for _ in range(2):
            sent = await refused_by_service(
                env, seeded_engine, handle.id, no_role, action.action_hash
            )
            assert sent.kind == DECISION_REFUSED and "does not have" in sent.message
        # The store's refusal is the run's own record: the service writes nothing more.
        with write_transaction(seeded_engine) as session:
            session.execute(update(Reviewer).where(Reviewer.id == "bob").values(active=False))
        bob = Decider("bob", "demo", APPROVER)
        sent = await refused_by_service(env, seeded_engine, handle.id, bob, action.action_hash)
        assert sent.kind == REFUSED_ON_RECORD and "disabled" in sent.message
        # Unauthenticated noise straight to Temporal (a forged signature): no row.
        alices = signed(decision(seeded_engine, "alice", action.action_hash), handle.id)
        assert "signed" in await refused(handle, signed_by_an_impostor(alices, handle.id))
        await decide(
            Runs(env.client),
            TEST_SIGNER,
            handle.id,
            alice,
            action.action_hash,
            "reject",
            "Not eligible.",
            choice=Choice(category="not_eligible"),
            store=Store(seeded_engine),
        )
        await asyncio.wait_for(handle.result(), UPDATE_SECONDS)
        await audit_caught_up(handle, seeded_engine)
    rows = refusals(seeded_engine, handle.id)
    assert [reviewer for reviewer, _ in rows] == ["alice", "alice", "bob"]
    unknown, no_role_row, store_refusal = (reason for _, reason in rows)
    assert f"({UNKNOWN_ACTION})" in unknown and "No pending request has this hash" in unknown
    assert f"({DECISION_REFUSED})" in no_role_row and "does not have" in no_role_row
    # bob's is the run's trail record (written by the run, not the service).
    assert "disabled" in store_refusal and "before it counted" not in store_refusal
