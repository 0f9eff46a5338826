"""Checking a reviewer's passkey (WebAuthn) with py_webauthn: what the decision service
and the effect both verify, and the registration the decision service signs.

Design note. The effect holds no state of the ceremony: an assertion proves itself
against three things it can compute or read alone, namely the challenge (derived from
the decision, `passkey_challenge.py`), the relying party (this host's settings), and
the reviewer's public key, whose registration carries the decision service's Ed25519
signature (`registration_document`), so a key written into the store by hand proves
nothing. The sign count is the decision service's check; the effect passes 0 (the
signature is what it checks) because the decision's nonce, spent once, already makes
each challenge single-use there.

py_webauthn (about 10 MiB with its CBOR and ASN.1 parsers) is imported by the check
itself: every worker builds a relying party, and most never see a passkey.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from signoff.config.settings import Settings
from workflows.actions import PasskeyAssertion

REGISTRATION_PURPOSE = "signoff-passkey-v1"


@dataclass(frozen=True)
class RelyingParty:
    """Who the passkeys belong to: the UI's host name, and the origins it is opened at."""

    rp_id: str
    origins: tuple[str, ...]

    @classmethod
    def of(cls, settings: Settings) -> RelyingParty:
        return cls(settings.passkey_rp_id, tuple(settings.passkey_origin_list))


@dataclass(frozen=True)
class VerifiedPasskey:
    """`problem` is None when the assertion holds; then `sign_count` is its counter."""

    problem: str | None
    sign_count: int = 0


def base64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def from_base64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def registration_document(
    reviewer_id: str, credential_id: str, public_key: str, created_at: datetime, key_id: str
) -> dict[str, Any]:
    """What the decision service signs when a reviewer registers a passkey."""
    return {
        "purpose": REGISTRATION_PURPOSE,
        "reviewer_id": reviewer_id,
        "credential_id": credential_id,
        "public_key": public_key,
        "created_at": created_at.isoformat(),
        "key_id": key_id,
    }


def verify_assertion(
    assertion: PasskeyAssertion,
    challenge: bytes,
    public_key: str,
    relying_party: RelyingParty,
    current_sign_count: int = 0,
) -> VerifiedPasskey:
    """Whether `assertion` is the registered key's signature over `challenge`, made at this
    relying party with the user verified (PIN or biometric), and counted past
    `current_sign_count`."""
    from webauthn import verify_authentication_response
    from webauthn.helpers.exceptions import WebAuthnException

    credential = {
        "id": assertion.credential_id,
        "rawId": assertion.credential_id,
        "type": "public-key",
        "response": {
            "authenticatorData": assertion.authenticator_data,
            "clientDataJSON": assertion.client_data_json,
            "signature": assertion.signature,
            **({"userHandle": assertion.user_handle} if assertion.user_handle else {}),
        },
    }
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=relying_party.rp_id,
            expected_origin=list(relying_party.origins),
            credential_public_key=from_base64url(public_key),
            credential_current_sign_count=current_sign_count,
            require_user_verification=True,
        )
    except (WebAuthnException, ValueError) as error:
        return VerifiedPasskey(f"its passkey signature does not hold ({error})")
    return VerifiedPasskey(None, verified.new_sign_count)
