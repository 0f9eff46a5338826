"""Forged decisions, tried as an attacker who reaches the Temporal frontend would.

Each is refused and moves no money: an unsigned `decide` (what `temporal workflow update
execute` sends), a valid signature over another hash, a key that is not the
deployment's, a stale proof, a replayed one, another tenant's reviewer, a disabled
reviewer, the same reviewer twice under four eyes (also as `Alice`), and
self-approval. What the signature shows is refused by the run's validator and leaves no
trace; a key the run does not know goes to `verify_decision`, whose refusal stays in the
trail; what only the store knows (the reviewer's tenant, whether they exist or are
active) is refused by the effect, on the audit record, and the run asks again.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from sqlalchemy import Engine, update
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.testing import WorkflowEnvironment

from activities.store import Reviewer, add_reviewer, write_transaction
from activities.store.decision_queries import AuditQuery, audit_rows
from signoff.config.decision_signatures import DecisionSigner
from tests.admin import ADMIN
from tests.workflow.approvals import (
    UPDATE_SECONDS,
    accepted_updates,
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
    refused,
    signed,
    signed_by_an_impostor,
    state_when,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.actions import PendingAction
from workflows.agent_run import AgentRun
from workflows.contracts import RunOutcome

REASON = "The customer's vase arrived broken."


async def rejected_by_carlos(
    env: WorkflowEnvironment, handle: WorkflowHandle[Any, Any], engine: Engine, action_hash: str
) -> RunOutcome:
    """End the run the ordinary way: a real reviewer rejects, the model answers.

    Not by cancelling: on the time-skipping server, a cancellation that lands while the
    run's `record_decision` activity is scheduled but not started makes the test server
    refuse the workflow task ("ACTIVITY_UNKNOWN") and the run hangs.
    """
    add_reviewer(engine, ADMIN, "carlos", "demo", ["refund_approver"], None)
    rejection = decision(engine, "carlos", action_hash, "reject", "not verified")
    # Signed at the test server's time: its clock runs ahead of the wall clock.
    await decide(handle, signed(rejection, handle.id, at=await env.get_current_time()))
    outcome = await asyncio.wait_for(handle.result(), UPDATE_SECONDS)
    assert isinstance(outcome, RunOutcome)
    return outcome


def refund_model(amount: str = "89.90") -> FakeModel:
    call = tool_reply(("refund", {"amount": amount, "reason": REASON}))
    return FakeModel().enqueue(call, text_reply("Done."))


async def test_an_unsigned_decision_is_refused_before_it_reaches_history(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    async with gate_run(time_skipping_env, refund_model(), seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        claims = decision(seeded_engine, "alice", action.action_hash)  # no proof at all
        try:
            await handle.execute_update(AgentRun.decide, claims)
            raise AssertionError("an unsigned decision was accepted")
        except WorkflowUpdateFailedError as error:
            assert "no proof of who made it" in str(error.cause)
        assert await accepted_updates(handle) == 0
        outcome = await rejected_by_carlos(
            time_skipping_env, handle, seeded_engine, action.action_hash
        )
        assert outcome.status == "completed" and not outcome.effects_performed
    assert refunded(seeded_engine, "C-1042") == []


async def test_forged_proofs_are_refused_and_an_unknown_key_stays_in_the_trail(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    async with gate_run(
        time_skipping_env, refund_model(), seeded_engine, decision_max_age=timedelta(minutes=5)
    ) as handle:
        (action,) = await pending_actions(handle)
        # The shared test server's clock runs ahead of the wall clock: sign with its time.
        now = await time_skipping_env.get_current_time()
        alice = decision(seeded_engine, "alice", action.action_hash)

        # Refused by the validator, with the keys the run got at its start: no trace.
        # A valid signature, made for another action, pasted onto this one.
        other = signed(alice.model_copy(update={"action_hash": "ab" * 32}), handle.id, at=now)
        moved = other.model_copy(update={"action_hash": action.action_hash})
        assert "no signoff front end signed" in await refused(handle, moved)
        # Signed with a key that is not the deployment's, under the deployment's key id.
        foreign = signed_by_an_impostor(signed(alice, handle.id, at=now), handle.id)
        assert "no signoff front end signed" in await refused(handle, foreign)
        # Signed for another run.
        elsewhere = signed(alice, "run-x", at=now)
        assert "no signoff front end signed" in await refused(handle, elsewhere)
        # Signed an hour before it reached the run.
        old = signed(alice, handle.id, at=now - timedelta(hours=1))
        assert "longer ago than the 300 s" in await refused(handle, old)
        assert await accepted_updates(handle) == 0

        # Signed with a key of its own: an id the run does not know, so the worker's
        # `verify_decision` judges it, and the refused attempt stays in the trail.
        unknown = signed(alice, handle.id, signer=DecisionSigner.generate(), at=now)
        assert "is unknown here" in await refused(handle, unknown)

        state = await state_when(handle, lambda s: len(s.decisions) == 1, "one refusal")
        assert [record.kind for record in state.decisions] == ["refused"]
        assert state.pending_actions == [action]  # nothing was decided
        outcome = await rejected_by_carlos(
            time_skipping_env, handle, seeded_engine, action.action_hash
        )
        assert outcome.status == "completed" and not outcome.effects_performed
    await replay(handle)
    assert refunded(seeded_engine, "C-1042") == []
    # The refused attempt is in the store's audit too, with who was claimed and why.
    audit = audit_rows(seeded_engine, AuditQuery(tenant_id="demo", kind="refused"), batch=50)
    mine = [row for row in audit if row.run_id == handle.id]
    assert [(row.reviewer_id, "is unknown here" in row.reason) for row in mine] == [("alice", True)]


async def test_what_only_the_store_knows_is_refused_at_once_on_the_record(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    async with gate_run(time_skipping_env, refund_model(), seeded_engine) as handle:
        (action,) = await pending_actions(handle)
        # Another tenant's reviewer, signed as if of this run's tenant: the signature is
        # good, the store knows better, and the decision is refused before it counts.
        carol = decision(seeded_engine, "carol", action.action_hash)
        pretend = carol.model_copy(update={"tenant_id": "demo"})
        assert "belongs to another tenant" in await refused(handle, pretend)
        # A name the store does not hold as such (`Alice` is not `alice`).
        alice = decision(seeded_engine, "alice", action.action_hash)
        shouting = alice.model_copy(update={"reviewer_id": "Alice"})
        assert "There is no reviewer 'Alice'" in await refused(handle, shouting)
        # Nothing was voided: the same action still waits, with no approval.
        (still,) = await pending_actions(handle)
        assert (still.action_hash, still.approvals) == (action.action_hash, [])
        outcome = await rejected_by_carlos(
            time_skipping_env, handle, seeded_engine, action.action_hash
        )
        assert outcome.status == "completed" and not outcome.effects_performed
    await replay(handle)
    assert refunded(seeded_engine, "C-1042") == []
    # Each refusal is an audit row, with who was claimed and why; no approval is.
    audit = audit_rows(seeded_engine, AuditQuery(tenant_id="demo"), batch=50)
    mine = sorted((row for row in audit if row.run_id == handle.id), key=lambda row: row.seq)
    refusals = [(row.reviewer_id, row.reason) for row in mine if row.kind == "refused"]
    assert [reviewer for reviewer, _ in refusals] == ["carol", "Alice"]
    assert [row for row in mine if row.kind == "approved"] == []


async def superseding(handle: WorkflowHandle[Any, Any], voided: str) -> PendingAction:
    """The action that waits in place of `voided`, once the effect voided it."""
    state = await state_when(
        handle,
        lambda s: [a.supersedes for a in s.pending_actions] == [voided],
        "waiting on the voided action's successor",
    )
    (action,) = state.pending_actions
    return action


async def test_a_replayed_proof_counts_once(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = refund_model("310.00")
    async with gate_run(time_skipping_env, model, seeded_engine, ticket_id="T-3107") as handle:
        (action,) = await pending_actions(handle)
        assert action.required_approvals == 2
        first = signed(decision(seeded_engine, "alice", action.action_hash), handle.id)
        assert (await decide(handle, first)).status == "approval_recorded"
        # The very same signed decision again, and once more under bob's name.
        assert "already approved" in await refused(handle, first)
        as_bob = first.model_copy(update={"reviewer_id": "bob"})
        assert "no signoff front end signed" in await refused(handle, as_bob)
        (still,) = await pending_actions(handle)
        assert [a.reviewer_id for a in still.approvals] == ["alice"]
        outcome = await rejected_by_carlos(
            time_skipping_env, handle, seeded_engine, action.action_hash
        )
        assert outcome.status == "completed" and not outcome.effects_performed
    assert refunded(seeded_engine, "C-3107") == []


async def test_a_disabled_reviewer_and_the_runs_own_actor_cannot_decide(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    async with gate_run(
        time_skipping_env, refund_model(), seeded_engine, actor_id="alice"
    ) as handle:
        (action,) = await pending_actions(handle)
        assert "asked for this run yourself" in await refused(
            handle, decision(seeded_engine, "alice", action.action_hash)
        )
        with write_transaction(seeded_engine) as session:
            session.execute(update(Reviewer).where(Reviewer.id == "bob").values(active=False))
        # Bob's front end signed before he was disabled: the store refuses him at once.
        late = decision(seeded_engine, "bob", action.action_hash)
        assert "Reviewer 'bob' is disabled" in await refused(handle, late)
        outcome = await rejected_by_carlos(
            time_skipping_env, handle, seeded_engine, action.action_hash
        )
        assert outcome.status == "completed" and not outcome.effects_performed
    assert refunded(seeded_engine, "C-1042") == []
