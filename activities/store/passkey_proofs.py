"""The effect's check of the passkey step-up: an approval above the policy's amount carries
the reviewer's own passkey signature over that very decision.

Design note. This runs inside the effect's transaction, after the Ed25519 proofs hold
(`effect_proofs.py`). For each approval of an action that the policy says needs a
passkey (`signoff/config/passkey_policy.py`, built from this worker's profiles and
settings, never from the command), it checks that

1. the decision carries an assertion (`Decision.passkey`);
2. the credential is registered to the approving reviewer, and its registration was
   signed by the decision service (a row a DBA wrote by hand verifies nothing);
3. the assertion is that credential's signature over the decision's challenge (the hash
   of its signed document), at this relying party, with the user verified.

A replay of the assertion on another decision fails 3 (another challenge); a replay of
the whole decision fails the nonce's single spending (`effect_proofs.spending_problem`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from activities.store.account_schema import Passkey
from signoff.config.decision_signatures import VerificationKeys
from signoff.config.passkey_challenge import decision_challenge
from signoff.config.passkey_policy import NO_PASSKEY_POLICY, PasskeyPolicy
from signoff.config.passkeys import RelyingParty, registration_document, verify_assertion
from workflows.actions import Decision, PendingAction

STEP_UP = "the passkey step-up"


@dataclass(frozen=True)
class PasskeyCheck:
    """When a passkey is needed, and the relying party its assertions are made at."""

    policy: PasskeyPolicy = NO_PASSKEY_POLICY
    relying_party: RelyingParty = field(default_factory=lambda: RelyingParty("localhost", ()))


NO_STEP_UP = PasskeyCheck()


def passkey_problem(
    session: Session,
    action: PendingAction,
    proofs: list[Decision],
    run_id: str,
    check: PasskeyCheck,
    keys: VerificationKeys,
) -> str | None:
    """None when no approval needs a passkey, or each that does carries a valid one."""
    if not check.policy.needs_passkey(action):
        return None
    for proof in proofs:
        reviewer = proof.reviewer_id
        if proof.passkey is None:
            return (
                f"The approval of '{reviewer}' carries no passkey signature, and this action "
                f"needs one ({STEP_UP}): it must be approved in the reviewer UI with a passkey."
            )
        stored = session.get(Passkey, proof.passkey.credential_id)
        if stored is None or stored.reviewer_id != reviewer:
            return f"The approval of '{reviewer}' is signed with a passkey not registered to them."
        registration = registration_document(
            stored.reviewer_id,
            stored.credential_id,
            stored.public_key,
            stored.created_at,
            stored.key_id,
        )
        if not keys.matches(registration, stored.key_id, stored.signature):
            return (
                f"The passkey of '{reviewer}' was not registered through the decision service: "
                "its registration carries no valid signature."
            )
        verified = verify_assertion(
            proof.passkey, decision_challenge(proof, run_id), stored.public_key, check.relying_party
        )
        if verified.problem is not None:
            return f"The approval of '{reviewer}' fails {STEP_UP}: {verified.problem}."
    return None
