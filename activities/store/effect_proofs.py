"""The effect's own check of its proof: nothing a command says is taken on its word.

Design note. Anyone who reaches the Temporal frontend can run a workflow of their own
that calls `execute_refund` by name on signoff's task queue. So the effect does not
trust its caller, not even signoff's own workflow: inside the refund's transaction it
checks, in order, that

1. the caller is the run the command names (the calling workflow's id): a workflow
   cannot take the id of a run that is open;
2. the action's hash is what its own fields give (`recomputed_hash`), and every field
   of the command (order, tenant, amount, currency, reason, state hash, idempotency key)
   is the action's: the key is computed again from the run and the action;
3. each proof is a decision signed by a signoff front end for this run and this exact
   action, an approval, of the action's tenant, signed before the action expired (the
   signature covers the action's hash, which no one knows before it is proposed);
   two proofs of one reviewer count once, and the approvers named are the proofs' own;
4. each proof's nonce was claimed for this run and this reviewer by the run's own
   `decide` update (`verify_decision`, which runs only as a local activity of the run's
   workflow task, after the validator found the action pending and unexpired), and was
   spent on no other effect. This is what binds a proof to the action's expiry: the
   command's `expires_at` is not covered by the action's hash (an escalation moves it
   under the same hash), so a caller could move it; the run's acceptance cannot be
   forged from outside the run's own worker;
5. where the policy asks for the passkey step-up (an approval above its amount), each
   proof carries the reviewer's own passkey signature over it (`passkey_proofs.py`).

The reviewers themselves are read again after this (`approvers.py`): active, in the
tenant, with the role, not the run's actor, and as many as the order's total needs.
Only when the refund is written are the proofs spent on it (`spend_proofs`), in the
same transaction: a refused command spends nothing, and a retried one finds its own
spending. A refusal is written to the audit as a `refused` event that says why. A
command that proves itself also writes the run's decision records it carries (the
approvals that led to it) before the ledger decides (`effect_trail.py`): decision to
effect is one activity.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from activities.store.decision_nonces import NONCES
from activities.store.effect_trail import trail_problem
from activities.store.passkey_proofs import NO_STEP_UP, PasskeyCheck, passkey_problem
from signoff.config.decision_signatures import VerificationKeys
from workflows.actions import Decision, PendingAction, RefundCommand
from workflows.approval_policy import action_amount_minor, effect_key, recomputed_hash
from workflows.decision_proof import CLOCK_SKEW
from workflows.effect_requirements import Requirements

NOTHING_DONE = "Nothing was refunded."
# Built once, with bound parameters: every effect reads its proofs' claims and spends them.
CLAIMS = select(NONCES.c.nonce, NONCES.c.run_id, NONCES.c.reviewer_id, NONCES.c.effect_key).where(
    NONCES.c.nonce.in_(bindparam("nonces", expanding=True))
)
SPEND = (
    update(NONCES)
    .where(NONCES.c.nonce.in_(bindparam("nonces", expanding=True)))
    .values(effect_key=bindparam("effect_key"))
)


@dataclass(frozen=True)
class ProofCheck:
    """What the effect checks a command against: the public keys that verify decisions, and
    the workflow that called it (from the activity's own info, never from the command)."""

    keys: VerificationKeys
    caller_run_id: str
    # When an approval needs the reviewer's passkey: the worker's own policy.
    passkeys: PasskeyCheck = NO_STEP_UP
    # What the worker's own profiles demand of the approvers (N of M, a role, a chain:
    # `approvers.py`); None: the ledger's own rule alone.
    approvals: Requirements | None = None
    # Why a standing rule cannot apply for this caller (activities/rule_callers.py).
    rule_caller: str | None = None


def proof_refusal(
    session: Session,
    command: RefundCommand,
    keys: VerificationKeys,
    caller_run_id: str,
    passkeys: PasskeyCheck = NO_STEP_UP,
) -> str | None:
    """None when the command proves itself (see the module note); else why not."""
    problem = _command_problem(command, caller_run_id)
    grant = command.action.rule_grant
    if problem is None and grant is not None:
        # A standing rule stands in for the signed approvals: the ledger checks the rule
        # itself (activities/store/rule_grants.py), and nothing else may ride along.
        if command.proofs or command.approvers != [grant.approver]:
            problem = "A command approved by a standing rule names the rule alone as approver."
        return None if problem is None else f"{problem} {NOTHING_DONE}"
    if problem is None:
        problem = _signature_problem(command, keys)
    if problem is None:
        problem = spending_problem(session, command.proofs, command.run_id, command.idempotency_key)
    if problem is None:
        problem = passkey_problem(
            session, command.action, command.proofs, command.run_id, passkeys, keys
        )
    if problem is None:
        problem = trail_problem(session, command.trail, command.run_id, keys, command.action)
    return None if problem is None else f"{problem} {NOTHING_DONE}"


def spend_proofs(session: Session, proofs: list[Decision], idempotency_key: str) -> None:
    """Spend every proof on this effect, in the effect's transaction."""
    nonces = [proof.nonce for proof in proofs if proof.nonce is not None]
    if nonces:
        session.connection().execute(SPEND, {"nonces": nonces, "effect_key": idempotency_key})


def caller_and_hash_problem(
    action: PendingAction, run_id: str, caller_run_id: str, effect: str
) -> str | None:
    """Steps 1 and 2 of the module note, for any effect (`effect` names it): the caller
    is the run the command names, and the action hashes to its own hash."""
    if run_id != caller_run_id:
        return (
            f"This {effect} was asked by workflow '{caller_run_id}' for run '{run_id}': "
            "only the run itself may carry out its action."
        )
    if recomputed_hash(action, run_id) != action.action_hash:
        return "The action does not hash to its own hash: it was altered after it was proposed."
    return None


def _command_problem(command: RefundCommand, caller_run_id: str) -> str | None:
    action = command.action
    problem = caller_and_hash_problem(action, command.run_id, caller_run_id, "refund")
    if problem is not None:
        return problem
    expected = (
        action.action_hash,
        action.targets.get("tenant_id"),
        action.targets.get("order_id"),
        action_amount_minor(action),
        action.arguments.get("currency"),
        action.state_hash,
        action.reason,
        effect_key(command.run_id, action.tool, action.action_hash),
    )
    given = (
        command.action_hash,
        command.tenant_id,
        command.order_id,
        command.amount_minor,
        command.currency,
        command.expected_state_hash,
        command.reason,
        command.idempotency_key,
    )
    if action.tool != "refund" or given != expected:
        return "The command does not match the action it claims to carry out."
    return None


def _signature_problem(command: RefundCommand, keys: VerificationKeys) -> str | None:
    if not command.proofs:
        return "The command carries no signed approval."
    problem = signature_problem(command.action, command.proofs, command.run_id, keys)
    if problem is not None:
        return problem
    if signers(command.proofs) != list(dict.fromkeys(command.approvers)):
        return "The approvers the command names are not the ones who signed."
    return None


def signers(proofs: list[Decision]) -> list[str]:
    """Who signed, each once, in order."""
    return list(dict.fromkeys(proof.reviewer_id for proof in proofs))


def signature_problem(
    action: PendingAction, proofs: list[Decision], run_id: str, keys: VerificationKeys
) -> str | None:
    """None when every proof is a signed approval of this action, for its tenant, given
    before it expired; else why not."""
    tenant_id = action.targets.get("tenant_id")
    for proof in proofs:
        if (
            proof.signature is None
            or proof.issued_at is None
            or proof.nonce is None
            or proof.key_id is None
        ):
            return f"The approval of '{proof.reviewer_id}' carries no signature."
        if proof.action_hash != action.action_hash or proof.verdict != "approve":
            return f"The decision of '{proof.reviewer_id}' is not an approval of this action."
        if proof.tenant_id != tenant_id:
            return f"The approval of '{proof.reviewer_id}' is for another tenant."
        key_problem = keys.key_problem(proof.key_id)
        if key_problem is not None:
            return f"The approval of '{proof.reviewer_id}' cannot be checked. {key_problem}"
        if not keys.matches(proof.signed_document(run_id), proof.key_id, proof.signature):
            return (
                f"The approval of '{proof.reviewer_id}' was not signed by a signoff front end "
                "for this run and this action."
            )
        if proof.issued_at > action.expires_at + CLOCK_SKEW:
            return f"The approval of '{proof.reviewer_id}' was signed after the action expired."
    return None


def spending_problem(
    session: Session, proofs: list[Decision], run_id: str, idempotency_key: str
) -> str | None:
    """None when every proof's nonce was claimed for this run and reviewer by the run's
    own `decide` update (`accepted_by_run`) and is unspent, or spent on this very effect
    (a retry); else why not."""
    nonces = [proof.nonce for proof in proofs if proof.nonce is not None]
    found = session.connection().execute(CLAIMS, {"nonces": nonces})
    claims = {claim.nonce: claim for claim in found}
    for proof in proofs:
        claim = claims.get(proof.nonce or "")
        # Claimed for this run and this reviewer, as `accepted_by_run` reads it.
        if claim is None or (claim.run_id, claim.reviewer_id) != (run_id, proof.reviewer_id):
            return f"The approval of '{proof.reviewer_id}' was never accepted by this run."
        if claim.effect_key not in (None, idempotency_key):
            return f"The approval of '{proof.reviewer_id}' was already spent on another effect."
    return None
