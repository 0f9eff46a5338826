"""A reviewer's passkey signature over a decision, as the `decide` update carries it."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from workflows.contract_base import Contract

# A base64url string as WebAuthn sends it (no padding); the longest part, the client
# data JSON, is a few hundred characters.
Base64Url = Annotated[str, Field(min_length=1, max_length=4096, pattern=r"^[A-Za-z0-9_-]+$")]


class PasskeyAssertion(Contract):
    """A reviewer's passkey signature over the decision (WebAuthn `navigator.credentials.get`).

    Its challenge is the SHA-256 of the decision's signed document
    (`signoff/config/passkey_challenge.py`), so the reviewer's own authenticator signed
    this exact decision; the effect checks it against the reviewer's registered public
    key (`activities/store/passkey_proofs.py`).
    """

    credential_id: Base64Url
    authenticator_data: Base64Url
    client_data_json: Base64Url
    signature: Base64Url
    user_handle: Base64Url | None = None
