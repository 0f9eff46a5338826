"""A software WebAuthn authenticator for tests that need no browser: an ECDSA P-256 key
that answers a challenge as a platform authenticator does (authenticator data with
user present and verified and a counter, client data JSON, and the signature over
both), and registers its key in the store as the decision service would.

The browser tests use Chromium's own virtual authenticator instead (tests/ui).
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import Engine
from webauthn.helpers import encode_cbor

from activities.store.passkeys import NewPasskey, add_passkey
from signoff.config.decision_signatures import DecisionSigner
from signoff.config.passkeys import RelyingParty, base64url, registration_document
from workflows.actions import PasskeyAssertion

RELYING_PARTY = RelyingParty("localhost", ("http://localhost:8000",))
USER_PRESENT = 0x01
USER_VERIFIED = 0x04
COSE_EC2, COSE_ES256, COSE_P256 = 2, -7, 1


class SoftAuthenticator:
    def __init__(self, rp_id: str = RELYING_PARTY.rp_id) -> None:
        self.rp_id = rp_id
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = base64url(os.urandom(16))
        self.sign_count = 0

    @property
    def public_key(self) -> str:
        """The COSE key, base64url, as the store keeps it."""
        numbers = self.key.public_key().public_numbers()
        cose = {
            1: COSE_EC2,
            3: COSE_ES256,
            -1: COSE_P256,
            -2: numbers.x.to_bytes(32, "big"),
            -3: numbers.y.to_bytes(32, "big"),
        }
        return base64url(encode_cbor(cose))

    def assertion(
        self,
        challenge: bytes,
        *,
        origin: str = RELYING_PARTY.origins[0],
        user_verified: bool = True,
    ) -> PasskeyAssertion:
        self.sign_count += 1
        flags = USER_PRESENT | (USER_VERIFIED if user_verified else 0)
        authenticator_data = (
            hashlib.sha256(self.rp_id.encode()).digest()
            + bytes([flags])
            + self.sign_count.to_bytes(4, "big")
        )
        client_data = json.dumps(
            {"type": "webauthn.get", "challenge": base64url(challenge), "origin": origin}
        ).encode()
        signature = self.key.sign(
            authenticator_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256())
        )
        return PasskeyAssertion(
            credential_id=self.credential_id,
            authenticator_data=base64url(authenticator_data),
            client_data_json=base64url(client_data),
            signature=base64url(signature),
        )

    def register(self, engine: Engine, reviewer_id: str, signer: DecisionSigner) -> None:
        """Stored as the decision service stores a verified registration, signed by `signer`."""
        created_at = datetime.now(UTC).replace(microsecond=0)
        document = registration_document(
            reviewer_id, self.credential_id, self.public_key, created_at, signer.key_id
        )
        add_passkey(
            engine,
            NewPasskey(
                credential_id=self.credential_id,
                reviewer_id=reviewer_id,
                public_key=self.public_key,
                sign_count=0,
                created_at=created_at,
                key_id=signer.key_id,
                signature=signer.sign(document),
            ),
        )
