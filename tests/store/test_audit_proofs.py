"""Each reviewer's decision in the audit is proven by its signature (audit_proofs.py),
from the store and the public keys alone. The attacks are those of someone who can
write the `decisions` table: a row appended at the chain's head with a valid hash
(the chain and any saved head still hold), a proof stripped, a proof copied from
another decision, a proof signed with a key that is not the decision service's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from activities.store.audit_proofs import NoKeysToCheck, unproven_decisions
from activities.store.database import write_transaction
from activities.store.decision_chain import verify_chain
from activities.store.decisions import NewEvent, append_decision, append_event, event_key
from signoff.config.decision_signatures import AuditKeys, DecisionSigner
from tests.store.chain_rewrite import set_proof
from tests.store.proofs import PROOF_SIGNER, signed_decision
from tests.workflow.approvals import signed_by_an_impostor
from workflows.actions import Decision, DecisionEvent, DecisionKind, DecisionRecord

RUN = "run-demo-proofs"
HASH = "ab" * 32
KEYS = AuditKeys({PROOF_SIGNER.key_id: PROOF_SIGNER.verification_keys().keys[PROOF_SIGNER.key_id]})


def record(store: Engine, sequence: int, kind: DecisionKind, proof: Decision | None) -> None:
    append_decision(
        store,
        DecisionEvent(
            run_id=RUN,
            tenant_id="demo",
            ticket_id="T-1042",
            sequence=sequence,
            record=DecisionRecord(
                action_hash=HASH,
                kind=kind,
                reviewer_id=None if proof is None else proof.reviewer_id,
                at=datetime.now(UTC),
            ),
            proof=proof,
        ),
    )


def decided(store: Engine) -> tuple[Decision, Decision]:
    """Alice approved, bob rejected, then the run's own expiry (no reviewer, no proof)."""
    approval = signed_decision(store, RUN, HASH, "alice", "approve")
    rejection = signed_decision(store, RUN, HASH, "bob", "reject")
    record(store, 0, "approved", approval)
    record(store, 1, "rejected", rejection)
    record(store, 2, "expired", None)
    return approval, rejection


def test_every_reviewer_decision_recorded_by_a_run_is_proven(store: Engine) -> None:
    decided(store)
    report = unproven_decisions(store, KEYS)
    assert report.checked == 2 and report.unproven == []  # the expiry is the run's own


def test_a_row_appended_at_the_head_with_a_valid_hash_is_caught(store: Engine) -> None:
    decided(store)
    with write_transaction(store) as session:
        append_event(
            session,
            NewEvent(
                event_key=event_key("forged"),
                tenant_id="demo",
                kind="approved",
                run_id=RUN,
                ticket_id="T-1042",
                action_hash="ef" * 32,
                decided_at=datetime.now(UTC),
                reviewer_id="alice",
            ),
        )
    assert verify_chain(store).intact  # the chain cannot see it
    [forged] = unproven_decisions(store, KEYS).unproven
    assert (forged.seq, forged.reviewer_id) == (4, "alice")
    assert forged.why == "it carries no signed decision"


def test_a_proof_stripped_copied_or_signed_by_another_key_is_caught(store: Engine) -> None:
    approval, rejection = decided(store)
    set_proof(store, "demo", 1, None)
    assert [row.seq for row in unproven_decisions(store, KEYS).unproven] == [1]
    set_proof(store, "demo", 1, rejection.model_dump_json())  # bob's, on alice's row
    [copied] = unproven_decisions(store, KEYS).unproven
    assert "another action, verdict, reviewer or tenant" in copied.why
    impostor = signed_by_an_impostor(approval, RUN)
    set_proof(store, "demo", 1, impostor.model_dump_json())
    [forged] = unproven_decisions(store, KEYS).unproven
    assert forged.why == "its signature does not match what the row says was decided"
    set_proof(store, "demo", 1, "{not json")
    assert unproven_decisions(store, KEYS).unproven[0].why == "its signed decision cannot be read"
    assert verify_chain(store).intact


def test_a_key_retired_since_proves_what_it_signed_before(store: Engine) -> None:
    approval, _ = decided(store)
    assert approval.issued_at is not None
    before = AuditKeys(KEYS.keys, {PROOF_SIGNER.key_id: approval.issued_at + timedelta(minutes=1)})
    assert unproven_decisions(store, before).unproven == []
    after = AuditKeys(KEYS.keys, {PROOF_SIGNER.key_id: approval.issued_at - timedelta(minutes=1)})
    whys = {row.why for row in unproven_decisions(store, after).unproven}
    assert whys == {f"it was signed with the key {PROOF_SIGNER.key_id} after that key was retired"}
    stranger = DecisionSigner.generate()
    unknown = AuditKeys({stranger.key_id: stranger.verification_keys().keys[stranger.key_id]})
    assert all(
        "not among the public keys" in row.why
        for row in unproven_decisions(store, unknown).unproven
    )


def test_without_keys_only_an_audit_with_no_reviewer_decision_passes(store: Engine) -> None:
    record(store, 0, "expired", None)
    assert unproven_decisions(store, None).checked == 0
    decided(store)
    with pytest.raises(NoKeysToCheck):
        unproven_decisions(store, None)
