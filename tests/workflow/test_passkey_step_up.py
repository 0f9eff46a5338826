"""The passkey step-up holds at the effect, whoever made the decision: a run of the real
workflow, approved with a decision the decision service signed (a valid Ed25519 proof,
as a compromised server, or an operator with its key, could make) but without the
reviewer's passkey, refunds nothing above the amount; the effect's refusal is on the
record. With alice's passkey over that very decision, the same run refunds."""

from __future__ import annotations

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment

from activities.refunds import RefundActivities
from activities.store.database import use_session
from activities.store.passkey_proofs import PasskeyCheck
from activities.store.schema import DecisionRow
from signoff.config.passkey_challenge import decision_challenge
from signoff.config.passkey_policy import PasskeyPolicy
from tests.passkey_authenticator import RELYING_PARTY, SoftAuthenticator
from tests.workflow.approvals import (
    TEST_KEYS,
    TEST_SIGNER,
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
    signed,
)
from tests.workflow.fakes import FakeModel, text_reply, tool_reply

# Refunds above 50.00 need the approver's passkey; the run asks for 89.90.
STEP_UP = PasskeyCheck(PasskeyPolicy(tool_above_minor={"refund": 5000}), RELYING_PARTY)


def refund_model() -> FakeModel:
    call = tool_reply(("refund", {"amount": "89.90", "reason": "The kettle arrived broken."}))
    return FakeModel().enqueue(call, text_reply("Done."))


def refused_reasons(engine: Engine, run_id: str) -> list[str]:
    with use_session(engine) as session:
        rows = session.scalars(
            select(DecisionRow).where(DecisionRow.run_id == run_id, DecisionRow.kind == "refused")
        )
        return [row.reason for row in rows]


async def test_a_signed_approval_without_passkey_moves_no_money(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    refunds = RefundActivities(seeded_engine, TEST_KEYS, STEP_UP)
    async with gate_run(time_skipping_env, refund_model(), seeded_engine, refunds=refunds) as run:
        (action,) = await pending_actions(run)
        await decide(run, decision(seeded_engine, "alice", action.action_hash))
        outcome = await run.result()

    assert not outcome.effects_performed
    assert refunded(seeded_engine, "C-1042") == []
    (why,) = refused_reasons(seeded_engine, run.id)
    assert "carries no passkey" in why


async def test_the_same_approval_with_the_reviewers_passkey_refunds(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    authenticator = SoftAuthenticator()
    authenticator.register(seeded_engine, "alice", TEST_SIGNER)
    refunds = RefundActivities(seeded_engine, TEST_KEYS, STEP_UP)
    async with gate_run(time_skipping_env, refund_model(), seeded_engine, refunds=refunds) as run:
        (action,) = await pending_actions(run)
        proof = signed(decision(seeded_engine, "alice", action.action_hash), run.id)
        passkey = authenticator.assertion(decision_challenge(proof, run.id))
        await decide(run, proof.model_copy(update={"passkey": passkey}))
        outcome = await run.result()

    assert outcome.effects_performed
    assert [str(amount) for amount in refunded(seeded_engine, "C-1042")] == ["89.90"]
    assert refused_reasons(seeded_engine, run.id) == []
