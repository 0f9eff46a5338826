"""What the decision page's passkey script sends, read into the service's types.

The browser posts the assertion as the JSON of a `PublicKeyCredential` (passkeys.js):
`id`, and `response` with `authenticatorData`, `clientDataJSON`, `signature` and
`userHandle`, each base64url. A malformed answer is refused in words, never a 500.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from signoff.service.passkey_step_up import PasskeyAnswer, PasskeyRefused
from workflows.actions import PasskeyAssertion

MAX_ASSERTION_CHARS = 16_000
NONCE_PATTERN = r"[0-9a-f]{32}"
MALFORMED = (
    "The passkey answer from this page is malformed. Nothing was decided: reload the page "
    "and approve again."
)


def passkey_answer(issued_at: str, nonce: str, assertion: str) -> PasskeyAnswer | None:
    """None when the form carries no passkey; PasskeyRefused when it carries a broken one."""
    if not (issued_at or nonce or assertion):
        return None
    try:
        when = datetime.fromisoformat(issued_at)
        credential = json.loads(assertion)
        if not re.fullmatch(NONCE_PATTERN, nonce):
            raise ValueError("not a nonce")
        if when.tzinfo is None or not isinstance(credential, dict):
            raise ValueError("not an aware time or not an object")
        return PasskeyAnswer(when, nonce, _assertion(credential))
    except (ValueError, ValidationError):
        raise PasskeyRefused(MALFORMED) from None


def _assertion(credential: dict[str, Any]) -> PasskeyAssertion:
    response = credential.get("response")
    if not isinstance(response, dict):
        raise ValueError("no response")
    return PasskeyAssertion(
        credential_id=credential.get("id"),
        authenticator_data=response.get("authenticatorData"),
        client_data_json=response.get("clientDataJSON"),
        signature=response.get("signature"),
        user_handle=response.get("userHandle") or None,
    )
