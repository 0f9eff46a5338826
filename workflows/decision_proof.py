"""Proof that a trusted front end authenticated the reviewer who decides.

Design note. The `decide` update can be sent by anyone who reaches the Temporal
frontend, so what its payload claims (reviewer, roles, tenant) proves nothing. A front
end that has authenticated the reviewer (the reviewer UI after sign-in, the CLI after
the reviewer's password) signs the canonical decision with the deployment's decision
signing key (Ed25519 over RFC 8785 JSON of the run id, action hash, verdict, reviewer,
tenant, reason, issue time, a random nonce and the signing key's id). Only the decision
service (the UI/API server, which authenticated the reviewer) holds a private key; the
workflow never sees a key, and its update handler asks the `verify_decision` activity,
which holds only public keys, to check the signature, the freshness and the nonce, and
to re-read the reviewer from the store.

The document and the key id are defined here, with the standard library only, so that
workflow-side code can import them; signing and checking, which need `cryptography`,
are in signoff/config/decision_signatures.py.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

import rfc8785

NONCE_BYTES = 16
# A front end's clock may run a little ahead of the server's, or of the effect's.
CLOCK_SKEW = timedelta(seconds=30)
# An Ed25519 signature is 64 bytes; a key id is the first 8 bytes of SHA-256 of the raw
# 32-byte public key, so that anyone holding the public key can compute its id.
SIGNATURE_HEX_LENGTH = 128
KEY_ID_HEX_LENGTH = 16
SIGNATURE_PATTERN = rf"^[0-9a-f]{{{SIGNATURE_HEX_LENGTH}}}$"
KEY_ID_PATTERN = rf"^[0-9a-f]{{{KEY_ID_HEX_LENGTH}}}$"
DOCUMENT_PURPOSE = "signoff-decision-v2"


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
    key_id: str,
    original_hash: str | None = None,
    edits: dict[str, str] | None = None,
    category: str | None = None,
) -> dict[str, Any]:
    """Everything a signature covers: change one field and the signature fails. An
    edit's original hash and edits, and a rejection's category, are covered when given
    (a decision without them signs the same document as before they existed)."""
    optional = {"original_hash": original_hash, "edits": edits, "category": category}
    return {
        **{name: value for name, value in optional.items() if value is not None},
        "purpose": DOCUMENT_PURPOSE,
        "run_id": run_id,
        "action_hash": action_hash,
        "verdict": verdict,
        "reviewer_id": reviewer_id,
        "tenant_id": tenant_id,
        "reason": reason,
        "issued_at": issued_at.isoformat(),
        "nonce": nonce,
        "key_id": key_id,
    }


def canonical_bytes(document: dict[str, Any]) -> bytes:
    """The bytes a signature covers: RFC 8785 JSON, the same on every host."""
    return rfc8785.dumps(document)


def key_id_of(raw_public_key: bytes) -> str:
    return hashlib.sha256(raw_public_key).hexdigest()[:KEY_ID_HEX_LENGTH]
