"""Proof that a trusted front end authenticated the reviewer who decides.

Design note. The `decide` update can be sent by anyone who reaches the Temporal
frontend, so what its payload claims (reviewer, roles, tenant) proves nothing. A front
end that has authenticated the reviewer (the reviewer UI after sign-in, the CLI after
the reviewer's password) signs the canonical decision with the deployment's decision
key (HMAC-SHA256 over RFC 8785 JSON of the run id, action hash, verdict, reviewer,
tenant, reason, issue time and a random nonce). The workflow never sees the key: its
update handler asks the `verify_decision` activity, which holds the key, checks the
signature, the freshness and the nonce, and re-reads the reviewer from the store.

Pure functions only: the key is an argument, so workflow-side code can import this.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime, timedelta
from typing import Any

import rfc8785

NONCE_BYTES = 16
# A front end's clock may run a little ahead of the server's, or of the effect's.
CLOCK_SKEW = timedelta(seconds=30)
SIGNATURE_HEX_LENGTH = 64


def signed_document(
    *,
    run_id: str,
    action_hash: str,
    verdict: str,
    reviewer_id: str,
    tenant_id: str,
    reason: str,
    issued_at: datetime,
    nonce: str,
) -> dict[str, Any]:
    """Everything a signature covers: change one field and the signature fails."""
    return {
        "purpose": "signoff-decision-v1",
        "run_id": run_id,
        "action_hash": action_hash,
        "verdict": verdict,
        "reviewer_id": reviewer_id,
        "tenant_id": tenant_id,
        "reason": reason,
        "issued_at": issued_at.isoformat(),
        "nonce": nonce,
    }


def sign(key: bytes, document: dict[str, Any]) -> str:
    return hmac.new(key, rfc8785.dumps(document), hashlib.sha256).hexdigest()


def signature_matches(key: bytes, document: dict[str, Any], signature: str) -> bool:
    # Constant-time comparison: a timing side channel must not reveal a valid prefix.
    return hmac.compare_digest(sign(key, document), signature)
