"""The payload codec: what SIGNOFF_PAYLOAD_KEYS accepts, and what a sealed payload resists."""

from __future__ import annotations

import base64

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.converter import ActivitySerializationContext, WorkflowSerializationContext

from signoff.config.data_converter import data_converter, data_converter_for
from signoff.config.payload_codec import EncryptionCodec
from signoff.config.payload_keys import (
    KEY_ID_METADATA,
    TENANT_METADATA,
    PayloadCipher,
    PayloadDecryptError,
    PayloadKeyError,
    parse_payload_keys,
    sealed_tenant,
)
from signoff.config.settings import Settings

SECRET_KEY = base64.b64encode(b"s" * 32).decode()
OTHER_KEY = base64.b64encode(b"o" * 32).decode()


def codec(keys: str) -> EncryptionCodec:
    return EncryptionCodec(PayloadCipher(parse_payload_keys(keys)))


@pytest.mark.parametrize(
    ("keys", "says"),
    [
        (SECRET_KEY, "no valid key id"),
        (f"a b:{SECRET_KEY}", "no valid key id"),
        ("k1:not base64!", "is not base64"),
        ("k1:" + base64.b64encode(b"short").decode(), "is 5 bytes"),
        (f"k1:{SECRET_KEY},k1:{OTHER_KEY}", "given twice"),
    ],
)
def test_bad_keys_are_refused_with_what_to_do(keys: str, says: str) -> None:
    with pytest.raises(PayloadKeyError, match=says) as refused:
        parse_payload_keys(keys)
    assert SECRET_KEY not in str(refused.value)


def test_no_keys_no_codec() -> None:
    assert data_converter_for(Settings()) is data_converter


async def test_a_sealed_payload_hides_its_data_and_names_its_key() -> None:
    sealing = codec(f"k1:{SECRET_KEY}")
    plain = Payload(metadata={"encoding": b"json/plain"}, data=b'{"text":"my parcel"}')
    [sealed] = await sealing.encode([plain])
    assert b"parcel" not in sealed.SerializeToString()
    assert sealed.metadata[KEY_ID_METADATA] == b"k1"
    assert await sealing.decode([sealed]) == [plain]
    [again] = await sealing.encode([plain])
    assert again.data != sealed.data  # a fresh nonce each time


async def test_an_altered_or_relabelled_payload_is_refused() -> None:
    sealing = codec(f"k1:{SECRET_KEY},k2:{SECRET_KEY}")
    [sealed] = await sealing.encode([Payload(metadata={"encoding": b"json/plain"}, data=b"1")])
    flipped = Payload()
    flipped.CopyFrom(sealed)
    flipped.data = sealed.data[:-1] + bytes([sealed.data[-1] ^ 1])
    with pytest.raises(PayloadDecryptError, match="does not authenticate"):
        await sealing.decode([flipped])
    # The same key under another id: the id is bound into the seal.
    relabelled = Payload()
    relabelled.CopyFrom(sealed)
    relabelled.metadata[KEY_ID_METADATA] = b"k2"
    with pytest.raises(PayloadDecryptError, match="does not authenticate"):
        await sealing.decode([relabelled])


async def test_a_clear_payload_passes_through() -> None:
    plain = Payload(metadata={"encoding": b"json/plain"}, data=b"1")
    assert await codec(f"k1:{SECRET_KEY}").decode([plain]) == [plain]


async def test_an_unknown_key_id_is_named() -> None:
    [sealed] = await codec(f"old:{OTHER_KEY}").encode([Payload(data=b"1")])
    with pytest.raises(PayloadDecryptError, match="'old'"):
        await codec(f"k1:{SECRET_KEY}").decode([sealed])


async def test_a_runs_payload_is_sealed_with_its_tenant() -> None:
    """Given the workflow (the SDK's serialization context), the codec seals the run's
    tenant with the payload: relabelled to another tenant, it no longer opens."""
    sealing = codec(f"k1:{SECRET_KEY}")
    plain = Payload(metadata={"encoding": b"json/plain"}, data=b"1")
    for context in (
        WorkflowSerializationContext(namespace="default", workflow_id="run-demo-T1"),
        ActivitySerializationContext(
            namespace="default",
            activity_id="1",
            activity_type="read_ticket",
            activity_task_queue="signoff",
            workflow_id="run-demo-T1",
            workflow_type="AgentRun",
            is_local=False,
        ),
    ):
        [sealed] = await sealing.with_context(context).encode([plain])
        assert sealed_tenant(sealed) == "demo"
        assert await sealing.decode([sealed]) == [plain]  # opening needs no context
        relabelled = Payload()
        relabelled.CopyFrom(sealed)
        relabelled.metadata[TENANT_METADATA] = b"globex"
        with pytest.raises(PayloadDecryptError, match="does not authenticate"):
            await sealing.decode([relabelled])
    other = WorkflowSerializationContext(namespace="default", workflow_id="not-a-run")
    [untagged] = await sealing.with_context(other).encode([plain])
    assert sealed_tenant(untagged) is None and await sealing.decode([untagged]) == [plain]
