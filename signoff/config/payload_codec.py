"""The payload cipher (payload_keys.py) as the SDK's `PayloadCodec`: what the client,
the worker, the replayer (through `data_converter_for`) and the UI's codec endpoint use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from temporalio.api.common.v1 import Payload
from temporalio.converter import (
    ActivitySerializationContext,
    PayloadCodec,
    SerializationContext,
    WithSerializationContext,
    WorkflowSerializationContext,
)

from signoff.config.payload_keys import PayloadCipher, payload_cipher
from signoff.config.run_identity import run_identity
from signoff.config.settings import Settings


class EncryptionCodec(PayloadCodec, WithSerializationContext):
    """Seals every payload on the way to Temporal, opens it on the way back. Given the
    workflow a payload belongs to (the SDK's serialization context), it seals the run's
    tenant with it (payload_keys.py)."""

    def __init__(self, cipher: PayloadCipher, tenant: str | None = None) -> None:
        self.cipher = cipher
        self.tenant = tenant

    def with_context(self, context: SerializationContext) -> Self:
        workflow_id = (
            context.workflow_id
            if isinstance(context, WorkflowSerializationContext | ActivitySerializationContext)
            else None
        )
        tenant = run_identity(workflow_id).tenant if workflow_id else None
        return type(self)(self.cipher, tenant)

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self.cipher.encrypt(payload, self.tenant) for payload in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self.cipher.decrypt(payload) for payload in payloads]


def payload_codec(settings: Settings) -> EncryptionCodec | None:
    """The codec the settings ask for, or None (no SIGNOFF_PAYLOAD_KEYS: payloads in clear).
    Raises PayloadKeyError for keys it cannot use."""
    cipher = payload_cipher(settings)
    return EncryptionCodec(cipher) if cipher is not None else None
