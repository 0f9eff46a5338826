"""The audit writes a reviewer's decision only with its proof.

Design note. `record_decision` writes into a tenant's hash chain, the record an auditor
trusts; so does the refund's effect, which writes the approvals it carries in its own
transaction (`effect_trail.py`). A record of an approval or a rejection says that a
reviewer decided: it must carry the decision that reviewer's front end signed
(`DecisionEvent.proof`), for this run, this action, this verdict and this tenant, and its
nonce must have been claimed for this run by the run's own `decide` update
(`verify_decision`, a local activity of the run's workflow task). Records the run makes
itself (expired, voided, denied, refused, cancelled) name no reviewer's will and need no
signature; they are written only for the caller's own run (`activities/caller.py`).
"""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.store.database import write_transaction
from activities.store.decision_nonces import accepted_by_run
from signoff.config.decision_signatures import VerificationKeys
from workflows.actions import DecisionEvent

VERDICT_OF = {"approved": "approve", "rejected": "reject", "responded": "respond"}


def record_refusal(engine: Engine, event: DecisionEvent, keys: VerificationKeys) -> str | None:
    """None when the event may be written; else why not."""
    with write_transaction(engine) as session:
        return record_refusal_in(session, event, keys)


def record_refusal_in(session: Session, event: DecisionEvent, keys: VerificationKeys) -> str | None:
    """`record_refusal` in the caller's write transaction."""
    record = event.record
    verdict = VERDICT_OF.get(record.kind)
    if verdict is None:
        return None  # the run's own record, written for the run alone
    proof = event.proof
    if proof is None or proof.signature is None or proof.nonce is None or proof.key_id is None:
        return f"A record of a reviewer's decision ({record.kind}) came without its proof."
    same = (proof.action_hash, proof.verdict, proof.reviewer_id, proof.tenant_id) == (
        record.action_hash,
        verdict,
        record.reviewer_id,
        event.tenant_id,
    )
    if not same:
        return "The record does not say what its signed decision says."
    key_problem = keys.key_problem(proof.key_id)
    if key_problem is not None:
        return f"The record's decision cannot be checked. {key_problem}"
    if not keys.matches(proof.signed_document(event.run_id), proof.key_id, proof.signature):
        return "The record's decision was not signed by a signoff front end for this run."
    accepted = accepted_by_run(
        session, nonce=proof.nonce, run_id=event.run_id, reviewer_id=proof.reviewer_id
    )
    if not accepted:
        return "The record's decision was never accepted by its run."
    return None
