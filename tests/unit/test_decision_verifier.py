"""The verifier on a real store: a nonce counts once, and a retry is not a replay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from activities.decision_verifier import DecisionVerifier
from tests.workflow.approvals import TEST_KEYS, decision, signed
from workflows.decision_check import DecisionCheck

RUN = "run-demo-nonce"
HASH = "cd" * 32


def check(sent_at: datetime, update_id: str, engine: Engine) -> DecisionCheck:
    sent = signed(decision(engine, "alice", HASH), RUN, at=sent_at)
    return DecisionCheck(
        run_id=RUN,
        run_tenant_id="demo",
        run_actor_id="ops",
        update_id=update_id,
        decision=sent,
        now=sent_at + timedelta(seconds=5),
    )


def test_a_nonce_counts_once_but_a_retried_verification_passes(seeded_engine: Engine) -> None:
    verifier = DecisionVerifier(seeded_engine, TEST_KEYS, timedelta(minutes=5))
    first = check(datetime.now(UTC), "update-1", seeded_engine)

    assert verifier.verify(first).accepted
    # The same activity retried after its commit: same update, same nonce.
    assert verifier.verify(first).accepted
    # The same signed decision sent in another update: a replay.
    replayed = verifier.verify(first.model_copy(update={"update_id": "update-2"}))
    assert not replayed.accepted and "already sent once" in replayed.message


def test_roles_come_from_the_store_not_the_payload(seeded_engine: Engine) -> None:
    verifier = DecisionVerifier(seeded_engine, TEST_KEYS, timedelta(minutes=5))
    now = datetime.now(UTC)
    dave = decision(seeded_engine, "dave", HASH)  # dave reads but may not decide
    claims = signed(dave.model_copy(update={"reviewer_roles": ["refund_approver"]}), RUN, at=now)
    proof = verifier.verify(
        DecisionCheck(
            run_id=RUN,
            run_tenant_id="demo",
            run_actor_id="ops",
            update_id="update-3",
            decision=claims,
            now=now,
        )
    )
    assert not proof.accepted and "does not have the refund_approver role" in proof.message
