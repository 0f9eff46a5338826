"""The verifier on a real store: a nonce counts once, a retry is not a replay, and only
the run's own workflow task may claim one."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.decision_verifier import DecisionVerifier
from activities.store.database import use_session
from activities.store.schema import DecisionNonce
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


async def test_only_the_runs_own_workflow_task_may_have_a_decision_checked(
    seeded_engine: Engine,
) -> None:
    """A workflow that calls `verify_decision` by name on the task queue, even under the
    run's own id (a run that has closed frees it), is refused and claims nothing: the
    claim is what the effect counts as the run's acceptance. As a local activity of the
    run's own workflow task, it checks."""
    verifier = DecisionVerifier(seeded_engine, TEST_KEYS, timedelta(minutes=5))
    sent = check(datetime.now(UTC), "update-remote", seeded_engine)
    remote = ActivityEnvironment()
    remote.info = dataclasses.replace(remote.info, workflow_id=RUN, is_local=False)
    local = ActivityEnvironment()
    local.info = dataclasses.replace(local.info, workflow_id=RUN, is_local=True)

    with pytest.raises(ApplicationError) as refused:
        await remote.run(verifier.verify_decision, sent)
    assert refused.value.type == "NotItsRun" and refused.value.non_retryable
    with use_session(seeded_engine) as session:
        assert session.get(DecisionNonce, sent.decision.nonce) is None
    assert (await local.run(verifier.verify_decision, sent)).accepted
