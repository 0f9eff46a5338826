"""Ed25519 signatures of decisions: the signer the decision service holds, and the public
keys every verifier holds.

Design note. A decision's signature proves that the decision service, the one process
that authenticated the reviewer, made it. With a shared (HMAC) key every holder of the
key could sign; with Ed25519 the workers, the ledger and the CLI hosts hold public keys
only, so a compromised worker can check decisions but never make one. Each signature
names its key's id (workflows/decision_proof.key_id_of), so that a key can be rotated
while decisions signed with the old one keep verifying until it is retired. Loading
the keys from files is decision_keys.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from workflows.decision_proof import canonical_bytes, key_id_of

ROTATE_HINT = "`signoff keys list` shows the keys; `signoff keys rotate` makes a new one"


def raw_public_key(public_key: Ed25519PublicKey) -> bytes:
    return public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True)
class DecisionSigner:
    """One private key of the decision service, and its id."""

    private_key: Ed25519PrivateKey = field(repr=False)

    @property
    def key_id(self) -> str:
        return key_id_of(raw_public_key(self.private_key.public_key()))

    def sign(self, document: dict[str, Any]) -> str:
        """The signature, hex; the document must name this key (`key_id`)."""
        if document.get("key_id") != self.key_id:
            raise ValueError("the signed document must name the key that signs it")
        return self.private_key.sign(canonical_bytes(document)).hex()

    def verification_keys(self) -> VerificationKeys:
        """Only this key's public half: for tests and single-process tools."""
        return VerificationKeys({self.key_id: self.private_key.public_key()})

    @classmethod
    def generate(cls) -> DecisionSigner:
        return cls(Ed25519PrivateKey.generate())


@dataclass(frozen=True)
class VerificationKeys:
    """The public keys that may have signed a decision (key id -> key), and the ids of
    retired keys, which verify nothing any more."""

    keys: Mapping[str, Ed25519PublicKey]
    retired: frozenset[str] = frozenset()

    def key_problem(self, key_id: str) -> str | None:
        """Why a decision signed with `key_id` cannot be checked here, or None."""
        if key_id in self.retired:
            return f"The decision key {key_id} that signed it was retired: it proves nothing now."
        if key_id not in self.keys:
            return (
                f"The decision key {key_id} that signed it is unknown here. If that key is "
                f"new, give this host the decision service's public keys ({ROTATE_HINT})."
            )
        return None

    def matches(self, document: dict[str, Any], key_id: str, signature: str) -> bool:
        """True only when the known, unretired key `key_id` signed exactly `document`."""
        if self.key_problem(key_id) is not None or document.get("key_id") != key_id:
            return False
        try:
            self.keys[key_id].verify(bytes.fromhex(signature), canonical_bytes(document))
        except (InvalidSignature, ValueError):
            return False
        return True


@dataclass(frozen=True)
class AuditKeys:
    """Every public key the decision service ever published, retired ones included, with
    when each was retired: the audit proves decisions made in the past, so a key retired
    since still proves what it signed before its retirement (and nothing after)."""

    keys: Mapping[str, Ed25519PublicKey]
    retired_at: Mapping[str, datetime] = field(default_factory=dict)

    def problem(self, document: dict[str, Any], key_id: str, signature: str) -> str | None:
        """Why `signature` does not prove `document` (issued at its `issued_at`), or None."""
        key = self.keys.get(key_id)
        if key is None or document.get("key_id") != key_id:
            return f"it names the decision key {key_id}, which is not among the public keys"
        try:
            key.verify(bytes.fromhex(signature), canonical_bytes(document))
        except (InvalidSignature, ValueError):
            return "its signature does not match what the row says was decided"
        retired = self.retired_at.get(key_id)
        if retired is not None and datetime.fromisoformat(document["issued_at"]) > retired:
            return f"it was signed with the key {key_id} after that key was retired"
        return None
