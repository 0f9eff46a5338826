"""The codec service decides which payloads open, for whom: the reviewer UI's codec
endpoint (tests/ui/test_codec_route.py) only maps its answers to HTTP statuses."""

from __future__ import annotations

import base64
import json

import pytest
from google.protobuf.json_format import MessageToDict, ParseDict
from temporalio.api.common.v1 import Payload, Payloads

from signoff.config.payload_codec import EncryptionCodec
from signoff.config.payload_keys import PayloadCipher, parse_payload_keys, sealed_tenant
from signoff.service.codec_payloads import (
    PayloadBodyInvalid,
    PayloadRefused,
    decode_payloads,
    encode_payloads,
)
from signoff.service.reviewer_access import SignedInReviewer

KEYS = "k1:" + base64.b64encode(b"s" * 32).decode()
CODEC = EncryptionCodec(PayloadCipher(parse_payload_keys(KEYS)))
PLAIN = Payload(metadata={"encoding": b"json/plain"}, data=b'{"text":"my parcel"}')
ALICE = SignedInReviewer("alice", "demo", "Alice", ("refund_approver",))
CAROL = SignedInReviewer("carol", "globex", "Carol", ("refund_approver",))
ADMIN = SignedInReviewer("admin", "demo", "Ada", ("admin",))


def body_of(payloads: list[Payload]) -> bytes:
    return json.dumps(MessageToDict(Payloads(payloads=payloads))).encode()


def sealed_for(tenant: str | None) -> bytes:
    return body_of([CODEC.cipher.encrypt(PLAIN, tenant)])


async def test_a_payload_opens_for_its_tenants_reviewer_only() -> None:
    opened = await decode_payloads(CODEC, sealed_for("demo"), ALICE)
    assert base64.b64decode(opened["payloads"][0]["data"]) == PLAIN.data
    with pytest.raises(PayloadRefused, match="tenant demo: only that tenant's reviewers"):
        await decode_payloads(CODEC, sealed_for("demo"), CAROL)


async def test_a_payload_of_no_tenant_opens_for_an_administrator_only() -> None:
    with pytest.raises(PayloadRefused, match="for an administrator only"):
        await decode_payloads(CODEC, sealed_for(None), ALICE)
    opened = await decode_payloads(CODEC, sealed_for(None), ADMIN)
    assert base64.b64decode(opened["payloads"][0]["data"]) == PLAIN.data


def test_what_a_reviewer_seals_is_sealed_with_their_tenant() -> None:
    sealed = encode_payloads(CODEC, body_of([PLAIN]), CAROL)
    [payload] = ParseDict(sealed, Payloads()).payloads
    assert sealed_tenant(payload) == "globex"


@pytest.mark.parametrize("body", [b"", b"not json", b'{"payloads": "x"}', b"[1]"])
async def test_a_body_that_is_not_payloads_is_refused(body: bytes) -> None:
    with pytest.raises(PayloadBodyInvalid, match='must be {"payloads"'):
        await decode_payloads(CODEC, body, ALICE)
