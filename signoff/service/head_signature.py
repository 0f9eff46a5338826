"""The signature on an export of the audit's chain heads: made, and checked.

Design note. These two functions are the only place that knows how a heads document is
signed; everything else passes the key material through. Today it is the deployment's
decision key, HMAC-SHA256 over the RFC 8785 JSON of the document (the same construction
as a signed decision, `workflows/decision_proof.py`), so a heads file can be checked
only where the decision key is. When decision signatures move to Ed25519, these two
change together: `sign_heads` takes the private key and `heads_signature_matches` the
public one, and `ALGORITHM` names the new scheme; nothing else needs to.
"""

from __future__ import annotations

from typing import Any

from workflows.decision_proof import sign, signature_matches

ALGORITHM = "hmac-sha256"


def sign_heads(document: dict[str, Any], key: bytes) -> str:
    """The signature of `document` (a JSON object) under `key`."""
    return sign(key, document)


def heads_signature_matches(document: dict[str, Any], signature: str, key: bytes) -> bool:
    """Whether `signature` is the signature of `document` under `key`."""
    return signature_matches(key, document, signature)
