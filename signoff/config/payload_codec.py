"""The payload cipher (payload_keys.py) as the SDK's `PayloadCodec`: what the client,
the worker, the replayer (through `data_converter_for`) and the UI's codec endpoint use.
"""

from __future__ import annotations

from collections.abc import Sequence

from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

from signoff.config.payload_keys import PayloadCipher, payload_cipher
from signoff.config.settings import Settings


class EncryptionCodec(PayloadCodec):
    """Seals every payload on the way to Temporal, opens it on the way back."""

    def __init__(self, cipher: PayloadCipher) -> None:
        self.cipher = cipher

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self.cipher.encrypt(payload) for payload in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self.cipher.decrypt(payload) for payload in payloads]


def payload_codec(settings: Settings) -> EncryptionCodec | None:
    """The codec the settings ask for, or None (no SIGNOFF_PAYLOAD_KEYS: payloads in clear).
    Raises PayloadKeyError for keys it cannot use."""
    cipher = payload_cipher(settings)
    return EncryptionCodec(cipher) if cipher is not None else None
