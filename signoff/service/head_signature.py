"""The signature on an export of the audit's chain heads: made, and checked.

Design note. These two functions are the only place that knows how a heads document is
signed. It is the decision service's Ed25519 key, over the RFC 8785 JSON of the
document, which names the key it was signed with (`key_id`), as a signed decision does
(`signoff/config/decision_signatures.py`). So only the decision service's host can
export heads (`signoff audit heads`, where the private key ring is), and anyone with
the public key set can check a heads file (`signoff audit verify --expect-heads`):
whoever can write the store can neither forge a heads file nor hide a rewrite from one.
"""

from __future__ import annotations

from typing import Any

from signoff.config.decision_signatures import DecisionSigner, VerificationKeys

ALGORITHM = "ed25519"


def sign_heads(document: dict[str, Any], signer: DecisionSigner) -> str:
    """The signature of `document` (a JSON object naming `signer.key_id`)."""
    return signer.sign(document)


def heads_signature_matches(
    document: dict[str, Any], signature: str, keys: VerificationKeys
) -> bool:
    """Whether `signature` is the signature of `document` under the public key it names
    (an unknown or retired key id never matches)."""
    key_id = document.get("key_id")
    if not isinstance(key_id, str) or keys.key_problem(key_id) is not None:
        return False
    return keys.matches(document, key_id, signature)
