"""The WebAuthn challenge of a decision: the SHA-256 of the bytes its Ed25519 signature covers.

Design note. A passkey step-up is worth something only if the reviewer's authenticator
signs the very decision the effect carries out, not a random server challenge that the
server could then attach to any decision. So the challenge is derived, never stored:
the SHA-256 of the RFC 8785 canonical JSON of the decision's signed document (run,
action hash, verdict, reviewer, tenant, reason, issued-at, nonce, key id). The browser
gets it from the decision service, the effect computes it again from the decision it
is given; an assertion made for one decision cannot stand for another, and the
decision's nonce, spent once, makes each challenge single-use.
"""

from __future__ import annotations

import hashlib

from workflows.actions import Decision
from workflows.decision_proof import canonical_bytes


def decision_challenge(decision: Decision, run_id: str) -> bytes:
    """The 32-byte challenge; the decision's proof fields (issued_at, nonce, key_id) must be set."""
    return hashlib.sha256(canonical_bytes(decision.signed_document(run_id))).digest()
