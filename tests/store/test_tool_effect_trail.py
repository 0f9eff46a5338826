"""Any irreversible tool's effect writes the run's decision records it carries (the
approval) in its claim's transaction, as the refund's does (activities/store/
tool_effects.py, effect_trail.py): the approval is on the audit before the tool may run,
whatever became of the run's own `record_decision`; and a record the store refuses
refuses the effect, with nothing claimed, spent or run."""

from __future__ import annotations

from sqlalchemy import Engine, select

from activities.store.connector_schema import ToolEffect
from activities.store.database import use_session
from activities.store.schema import DecisionRow
from activities.store.tool_effects import claim_effect, finish_effect
from tests.store.proofs import RUN_ID, signed_approval
from tests.store.test_tool_effects import CHECK, NEEDS_ONE, command, refusals, voucher_action
from workflows.actions import Decision, DecisionEvent, DecisionRecord, PendingAction


def approval_event(action: PendingAction, proof: Decision, reviewer: str) -> DecisionEvent:
    """The run's record of `proof`, as its trail recorder sends it."""
    return DecisionEvent(
        run_id=RUN_ID,
        tenant_id="demo",
        ticket_id="T-1042",
        sequence=0,
        record=DecisionRecord(
            action_hash=action.action_hash,
            kind="approved",
            reviewer_id=reviewer,
            at=proof.issued_at,
        ),
        approval_number=1,
        approvals_required=1,
        proof=proof,
    )


def audit(engine: Engine) -> list[tuple[str, str | None]]:
    with use_session(engine) as session:
        rows = session.execute(
            select(DecisionRow.kind, DecisionRow.reviewer_id)
            .where(DecisionRow.run_id == RUN_ID)
            .order_by(DecisionRow.seq)
        )
        return [(kind, reviewer) for kind, reviewer in rows]


def claimed(engine: Engine) -> list[str]:
    with use_session(engine) as session:
        return list(session.scalars(select(ToolEffect.status)))


def test_the_claim_writes_the_approval_before_the_effect_and_a_retry_writes_it_once(
    seeded_engine: Engine,
) -> None:
    action = voucher_action()
    proof = signed_approval(seeded_engine, action, "alice")
    sent = command(action, [proof]).model_copy(
        update={"trail": [approval_event(action, proof, "alice")]}
    )
    assert claim_effect(seeded_engine, sent, CHECK, NEEDS_ONE).status == "go"
    assert audit(seeded_engine) == [("approved", "alice")]  # before the tool runs
    finish_effect(seeded_engine, sent, '{"voucher": "V-1"}')
    assert claim_effect(seeded_engine, sent, CHECK, NEEDS_ONE).status == "done"
    assert audit(seeded_engine) == [("approved", "alice"), ("executed", None)]


def test_an_approval_the_store_refuses_to_record_refuses_the_effect(
    seeded_engine: Engine,
) -> None:
    action = voucher_action()
    proof = signed_approval(seeded_engine, action, "alice")
    # The record names another reviewer than its signed decision: never written.
    forged = approval_event(action, proof, "bob")
    sent = command(action, [proof]).model_copy(update={"trail": [forged]})
    claim = claim_effect(seeded_engine, sent, CHECK, NEEDS_ONE)

    assert claim.status == "refused"
    assert "does not say what its signed decision says" in claim.message
    assert claimed(seeded_engine) == []  # nothing claimed, so nothing runs
    assert audit(seeded_engine) == [("refused", None)]
    assert any("Nothing was done" in why for why in refusals(seeded_engine))
    # The proof was not spent: the run's own writer may still record it, and a command
    # with its true record goes through.
    honest = sent.model_copy(update={"trail": [approval_event(action, proof, "alice")]})
    assert claim_effect(seeded_engine, honest, CHECK, NEEDS_ONE).status == "go"
