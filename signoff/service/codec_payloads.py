"""The remote codec's work, for the reviewer UI's codec endpoint
(approvals_ui/routers/codec.py): a body of payloads in, the answer's body out.

Both take and give `{"payloads": [...]}`, each payload in protobuf's JSON form (base64
metadata values and data), as the Temporal Web UI and `temporal --codec-endpoint` send
them. What opens is decided here, not by the face: a payload sealed with a tenant opens
for that tenant's reviewers only, one sealed with none for an administrator only
(`SignedInReviewer.may_open_payload_of`); what `encode` seals is sealed with the
reviewer's tenant. The face checks the request itself (origin, credential, namespace)
and maps these exceptions to HTTP statuses.
"""

from __future__ import annotations

import json
from typing import Any

from google.protobuf.json_format import MessageToDict, ParseDict, ParseError
from temporalio.api.common.v1 import Payload, Payloads

from signoff.config.payload_codec import EncryptionCodec
from signoff.config.payload_keys import ENCRYPTED_ENCODING, PayloadDecryptError, sealed_tenant
from signoff.service.reviewer_access import SignedInReviewer

__all__ = [
    "PayloadBodyInvalid",
    "PayloadDecryptError",
    "PayloadRefused",
    "decode_payloads",
    "encode_payloads",
]


class PayloadBodyInvalid(ValueError):
    """The body is not `{"payloads": [...]}` in protobuf's JSON form."""


class PayloadRefused(Exception):
    """A payload the reviewer may not open (another tenant's, or no tenant's); says whose."""


async def decode_payloads(
    codec: EncryptionCodec, body: bytes, reviewer: SignedInReviewer
) -> dict[str, Any]:
    """The payloads of `body` opened, if every sealed one is the reviewer's to open.

    Raises PayloadBodyInvalid, PayloadRefused (nothing is opened then), or
    PayloadDecryptError (a key this process does not hold, a relabelled payload)."""
    payloads = _parsed(body)
    _refuse_other_tenants(payloads, reviewer)
    return _answer(await codec.decode(payloads))


def encode_payloads(
    codec: EncryptionCodec, body: bytes, reviewer: SignedInReviewer
) -> dict[str, Any]:
    """The payloads of `body` sealed with the reviewer's tenant; PayloadBodyInvalid."""
    payloads = _parsed(body)
    return _answer([codec.cipher.encrypt(payload, reviewer.tenant_id) for payload in payloads])


def _parsed(body: bytes) -> list[Payload]:
    try:
        return list(ParseDict(json.loads(body), Payloads()).payloads)
    except (ParseError, ValueError, TypeError):
        raise PayloadBodyInvalid(
            'The body must be {"payloads": [{"metadata": {...}, "data": "BASE64"}, ...]}.'
        ) from None


def _answer(payloads: list[Payload]) -> dict[str, Any]:
    body: dict[str, Any] = MessageToDict(Payloads(payloads=payloads))
    body.setdefault("payloads", [])
    return body


def _refuse_other_tenants(payloads: list[Payload], reviewer: SignedInReviewer) -> None:
    for payload in payloads:
        if payload.metadata.get("encoding") != ENCRYPTED_ENCODING:
            continue  # in clear already
        tenant = sealed_tenant(payload)
        if tenant is None and not reviewer.may_open_payload_of(None):
            raise PayloadRefused(
                "A payload sealed without a tenant opens for an administrator only."
            )
        if tenant is not None and not reviewer.may_open_payload_of(tenant):
            raise PayloadRefused(
                f"A payload belongs to a run of tenant {tenant}: only that tenant's reviewers "
                "may read it."
            )
