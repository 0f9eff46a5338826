"""The audit writes a reviewer's decision only with its proof (record_proofs.py): the run
itself, calling `record_decision`, cannot write 'approved by alice' without alice's
signed decision for that action, whose nonce the run's own `decide` update claimed; a
record the run makes itself (an expiry) needs none."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, select
from temporalio.exceptions import ApplicationError

from activities.decisions import DecisionActivities
from activities.store.database import use_session, write_transaction
from activities.store.schema import DecisionNonce, DecisionRow
from tests.store.proofs import PROOF_KEYS, as_run, signed_decision, signoffs_own_run
from tests.workflow.approvals import signed_by_an_impostor
from workflows.actions import Decision, DecisionEvent, DecisionKind, DecisionRecord

RUN = "run-demo-audited"
HASH = "cd" * 32


def event(
    kind: DecisionKind, proof: Decision | None, reviewer: str | None = "alice"
) -> DecisionEvent:
    return DecisionEvent(
        run_id=RUN,
        tenant_id="demo",
        ticket_id="T-1042",
        sequence=0,
        record=DecisionRecord(
            action_hash=HASH, kind=kind, reviewer_id=reviewer, at=datetime.now(UTC)
        ),
        proof=proof,
    )


async def recorded(store: Engine, sent: DecisionEvent) -> int:
    activity = DecisionActivities(store, PROOF_KEYS, signoffs_own_run).record_decision
    row_id: int = await as_run(RUN).run(activity, sent)
    return row_id


def rows(store: Engine) -> list[DecisionRow]:
    with use_session(store) as session:
        return list(session.scalars(select(DecisionRow).where(DecisionRow.run_id == RUN)))


async def test_a_signed_approval_is_recorded(store: Engine) -> None:
    proof = signed_decision(store, RUN, HASH, "alice", "approve")
    await recorded(store, event("approved", proof))
    assert [(row.kind, row.reviewer_id) for row in rows(store)] == [("approved", "alice")]


async def test_an_approval_no_update_of_the_run_accepted_is_not_written(
    store: Engine,
) -> None:
    # Signed by a front end, but its nonce was claimed by no `decide` update of the run
    # (the run's validator refused it, or it never reached the run): the record may not
    # claim it for the run, and nothing is written.
    proof = signed_decision(store, RUN, HASH, "alice", "approve")
    with write_transaction(store) as session:
        session.delete(session.get(DecisionNonce, proof.nonce))
    with pytest.raises(ApplicationError) as refused:
        await recorded(store, event("approved", proof))
    assert refused.value.type == "UnprovenDecision" and "never accepted" in refused.value.message
    assert rows(store) == []
    with use_session(store) as session:
        assert session.get(DecisionNonce, proof.nonce) is None


async def test_a_record_the_run_makes_itself_needs_no_signature(store: Engine) -> None:
    await recorded(store, event("expired", None, reviewer=None))
    assert [row.kind for row in rows(store)] == ["expired"]


def unproven(store: Engine) -> DecisionEvent:
    return event("approved", None)


def forged(store: Engine) -> DecisionEvent:
    genuine = signed_decision(store, RUN, HASH, "alice", "approve")
    return event("approved", signed_by_an_impostor(genuine, RUN))


def of_someone_else(store: Engine) -> DecisionEvent:
    return event("approved", signed_decision(store, RUN, HASH, "bob", "approve"))


def a_rejection_as_an_approval(store: Engine) -> DecisionEvent:
    return event("approved", signed_decision(store, RUN, HASH, "alice", "reject"))


def for_another_run(store: Engine) -> DecisionEvent:
    return event("approved", signed_decision(store, "run-demo-other", HASH, "alice", "approve"))


def used_by_another_run(store: Engine) -> DecisionEvent:
    """A nonce another run holds: only a forgery could carry it (a signature covers its
    run), so the record is refused even though a run may claim a nonce when it writes."""
    proof = signed_decision(store, RUN, HASH, "alice", "approve")
    with write_transaction(store) as session:
        claim = session.get(DecisionNonce, proof.nonce)
        assert claim is not None
        claim.run_id = "run-demo-other"
    return event("approved", proof)


CASES = {
    "no proof": (unproven, "without its proof"),
    "a forged signature": (forged, "not signed by a signoff front end"),
    "another reviewer's decision": (of_someone_else, "does not say what"),
    "a rejection written as an approval": (a_rejection_as_an_approval, "does not say what"),
    "a decision signed for another run": (for_another_run, "not signed by a signoff front end"),
    "a decision whose nonce another run holds": (used_by_another_run, "never accepted by its run"),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_reviewers_decision_without_its_proof_is_not_written(
    store: Engine, case: str
) -> None:
    build, why = CASES[case]
    with pytest.raises(ApplicationError) as refused:
        await recorded(store, build(store))
    assert refused.value.type == "UnprovenDecision" and refused.value.non_retryable
    assert why in refused.value.message
    assert rows(store) == []
