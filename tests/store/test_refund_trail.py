"""The refund's transaction says what became of the run's decision records it carries:
read before it commits (activities/store/refunds.py), so that the activity needs no
transaction of its own after it to know which records are in the audit."""

from __future__ import annotations

from sqlalchemy import Engine, select

from activities.store.database import use_session
from activities.store.decisions import from_trail
from activities.store.effect_proofs import ProofCheck
from activities.store.refunds import answer_refund
from activities.store.schema import DecisionRow
from signoff.config.decision_signatures import DecisionSigner
from tests.store.proofs import PROOF_KEYS, RUN_ID, proven_action, proven_command, signed_approval
from tests.store.test_tool_effect_trail import approval_event
from workflows.actions import Decision, DecisionEvent, PendingAction

TICKET = "T-2210"  # order C-2210, paid 45.00 EUR


def record_of(action: PendingAction, proof: Decision) -> DecisionEvent:
    return approval_event(action, proof, proof.reviewer_id).model_copy(update={"ticket_id": TICKET})


def recorded_at(store: Engine, event_key: str) -> object:
    with use_session(store) as session:
        query = select(DecisionRow.recorded_at).where(DecisionRow.event_key == event_key)
        return session.scalars(query).one_or_none()


def test_a_refund_answers_when_its_approval_was_recorded(store: Engine) -> None:
    action = proven_action(store, 2000, ticket_id=TICKET)
    proof = signed_approval(store, action, "alice")
    record = record_of(action, proof)
    command = proven_command(action, [proof], ticket_id=TICKET).model_copy(
        update={"trail": [record]}
    )

    answer = answer_refund(store, command, ProofCheck(PROOF_KEYS, RUN_ID))

    assert answer.result.status == "refunded"
    key = from_trail(record).event_key
    assert answer.trail_recorded == {key: recorded_at(store, key)}


def test_a_refused_refund_answers_that_its_records_were_not_written(store: Engine) -> None:
    action = proven_action(store, 2000, ticket_id=TICKET)
    forged = signed_approval(store, action, "alice", signer=DecisionSigner.generate())
    command = proven_command(action, [forged], ticket_id=TICKET).model_copy(
        update={"trail": [record_of(action, forged)]}
    )

    answer = answer_refund(store, command, ProofCheck(PROOF_KEYS, RUN_ID))

    assert answer.result.status == "refused"
    assert answer.trail_recorded == {}
