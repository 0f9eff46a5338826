"""Registering a reviewer's passkey, and the options a browser needs to use one.

The decision service is the WebAuthn relying party. Registration is two requests:
`registration_options` (a random challenge, kept by the caller in the reviewer's
session) and `register` (the browser's answer, verified with py_webauthn, then signed
with the decision service's Ed25519 key and stored with an audit row). The signature is
what the effect checks before it trusts the stored public key
(`activities/store/passkey_proofs.py`).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime
from typing import Any

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_registration_response,
)
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from activities.store import passkeys as passkey_rows
from activities.store.passkeys import NewPasskey, StoredPasskey, add_passkey
from signoff.config.decision_signatures import DecisionSigner
from signoff.config.passkeys import RelyingParty, base64url, from_base64url, registration_document
from signoff.service.handles import Store, engine_of, on_store

CHALLENGE_BYTES = 32
RP_NAME = "signoff"
# How long the browser waits for the authenticator, in milliseconds.
CEREMONY_TIMEOUT_MS = 120_000


class PasskeyRegistrationFailed(Exception):
    """The browser's answer did not verify; nothing was stored."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def new_challenge() -> bytes:
    return secrets.token_bytes(CHALLENGE_BYTES)


def registration_options(
    relying_party: RelyingParty,
    reviewer_id: str,
    display_name: str,
    registered: list[StoredPasskey],
    challenge: bytes,
) -> str:
    """The JSON for `navigator.credentials.create`: a passkey that verifies its user."""
    options = generate_registration_options(
        rp_id=relying_party.rp_id,
        rp_name=RP_NAME,
        user_name=reviewer_id,
        # WebAuthn's user handle holds at most 64 bytes; a reviewer id may be longer.
        user_id=hashlib.sha256(reviewer_id.encode()).digest(),
        user_display_name=display_name or reviewer_id,
        challenge=challenge,
        timeout=CEREMONY_TIMEOUT_MS,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.PREFERRED,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=_descriptors(registered),
    )
    return options_to_json(options)


def authentication_options(
    relying_party: RelyingParty, registered: list[StoredPasskey], challenge: bytes
) -> str:
    """The JSON for `navigator.credentials.get`, over `challenge` (a decision's hash)."""
    options = generate_authentication_options(
        rp_id=relying_party.rp_id,
        challenge=challenge,
        timeout=CEREMONY_TIMEOUT_MS,
        allow_credentials=_descriptors(registered),
        user_verification=UserVerificationRequirement.REQUIRED,
    )
    return options_to_json(options)


def register(
    store: Store,
    signer: DecisionSigner,
    relying_party: RelyingParty,
    reviewer_id: str,
    credential: dict[str, Any],
    challenge: bytes,
    now: datetime | None = None,
) -> str:
    """Verify the browser's answer to `challenge` and store the passkey; its credential id."""
    engine = engine_of(store)
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=relying_party.rp_id,
            expected_origin=list(relying_party.origins),
            require_user_verification=True,
        )
    except (WebAuthnException, ValueError, TypeError) as error:
        raise PasskeyRegistrationFailed(
            f"The passkey could not be registered: {error}. Nothing was stored; try again."
        ) from None
    credential_id = base64url(verified.credential_id)
    public_key = base64url(verified.credential_public_key)
    # Whole seconds: the signed document must read back the same from any store.
    created_at = (now or datetime.now(UTC)).replace(microsecond=0)
    document = registration_document(
        reviewer_id, credential_id, public_key, created_at, signer.key_id
    )
    add_passkey(
        engine,
        NewPasskey(
            credential_id=credential_id,
            reviewer_id=reviewer_id,
            public_key=public_key,
            sign_count=verified.sign_count,
            created_at=created_at,
            key_id=signer.key_id,
            signature=signer.sign(document),
        ),
    )
    return credential_id


def _descriptors(registered: list[StoredPasskey]) -> list[PublicKeyCredentialDescriptor]:
    return [PublicKeyCredentialDescriptor(id=from_base64url(p.credential_id)) for p in registered]


__all__ = [
    "PasskeyRegistrationFailed",
    "authentication_options",
    "new_challenge",
    "passkeys_of",
    "register",
    "registration_options",
]

# The store layer's calls, each taking the face's Store (handles.py).
passkeys_of = on_store(passkey_rows.passkeys_of)
