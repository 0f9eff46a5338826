"""Payloads encrypted before they reach Temporal (`SIGNOFF_PAYLOAD_KEYS`): AES-256-GCM.

This module seals and opens one payload; `payload_codec.py` makes it the SDK's
`PayloadCodec`. Apart, because `signoff status` decrypts over the bare service and
must not load `temporalio.converter` (signoff/config/temporal_service.py).

Design note. A workflow's history holds ticket text, customer names and model replies;
with a payload key configured, Temporal (its database, its Web UI, an exported history)
sees only ciphertext. Each payload is the whole serialized `Payload` (its metadata and
data), sealed with a fresh 96-bit nonce; the key id is bound into the seal as associated
data, so a payload cannot be passed off under another key's name. The outer metadata
says `encoding: binary/encrypted` and which key sealed it (`encryption-key-id`). A
payload of a run also names the run's tenant (`signoff-tenant`, from the workflow id
the SDK gives the codec as its serialization context), sealed into the associated data
beside the key id: the UI's codec endpoint opens a payload only for a reviewer of that
tenant, and relabelling it makes it fail to open.

Rotation: `SIGNOFF_PAYLOAD_KEYS="k2:BASE64,k1:BASE64"` encrypts with the first key and
decrypts with whichever key a payload names, so runs started under k1 still read after
k2 is added in front. Remove a key only once no history that needs it is kept. A payload
without the encrypted encoding passes through: histories recorded before encryption
was turned on still replay.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from dataclasses import dataclass

from temporalio.api.common.v1 import Payload

from signoff.config.settings import Settings
from signoff.config.temporal_tls import TemporalSettingsError

ENCRYPTED_ENCODING = b"binary/encrypted"
KEY_ID_METADATA = "encryption-key-id"
# The tenant of the run whose payload it is, sealed with it (see `encrypt`).
TENANT_METADATA = "signoff-tenant"
NONCE_BYTES = 12
KEY_BYTES = 32
KEY_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
KEYS_FORMAT = (
    "SIGNOFF_PAYLOAD_KEYS is a comma-separated list of KEY_ID:BASE64_KEY, the first one "
    'encrypting; make a key with `python -c "import os, base64; '
    'print(base64.b64encode(os.urandom(32)).decode())"`.'
)


class PayloadKeyError(TemporalSettingsError):
    """A SIGNOFF_PAYLOAD_KEYS value we cannot use; the message says what to do. A
    Temporal setting like the TLS ones: every command that connects reports it so."""


class PayloadDecryptError(ValueError):
    """A payload that names a key we do not hold, or that fails its authentication."""


@dataclass(frozen=True)
class PayloadKeys:
    """The encrypting key's id, and every key by id (the encrypting one included)."""

    current: str
    by_id: dict[str, bytes]


def parse_payload_keys(text: str) -> PayloadKeys:
    """`id1:base64,id2:base64`; raises PayloadKeyError naming the bad entry (never its key)."""
    by_id: dict[str, bytes] = {}
    order: list[str] = []
    for position, entry in enumerate(part.strip() for part in text.split(",")):
        key_id, separator, encoded = entry.partition(":")
        where = f"SIGNOFF_PAYLOAD_KEYS entry {position + 1}"
        if not separator or not KEY_ID.match(key_id):
            raise PayloadKeyError(
                f"{where} has no valid key id (letters, digits, '.', '_', '-'). {KEYS_FORMAT}"
            )
        if key_id in by_id:
            raise PayloadKeyError(f"{where}: the key id '{key_id}' is given twice.")
        try:
            key = base64.b64decode(encoded.strip(), validate=True)
        except (binascii.Error, ValueError):
            raise PayloadKeyError(f"{where} ('{key_id}') is not base64. {KEYS_FORMAT}") from None
        if len(key) != KEY_BYTES:
            raise PayloadKeyError(
                f"{where} ('{key_id}') is {len(key)} bytes; AES-256 needs {KEY_BYTES}. "
                f"{KEYS_FORMAT}"
            )
        by_id[key_id] = key
        order.append(key_id)
    return PayloadKeys(current=order[0], by_id=by_id)


class PayloadCipher:
    """AES-GCM over whole payloads, by key id (see the module note)."""

    def __init__(self, keys: PayloadKeys) -> None:
        # Imported here: only a process with a payload key pays for it.
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self._keys = keys
        self._ciphers = {key_id: AESGCM(key) for key_id, key in keys.by_id.items()}

    @property
    def key_ids(self) -> list[str]:
        return list(self._keys.by_id)

    def encrypt(self, payload: Payload, tenant: str | None = None) -> Payload:
        """Seal `payload`; a payload of a tenant's run names the tenant in its metadata,
        and the tenant is sealed with it (associated data), so that it cannot be
        relabelled: the codec endpoint opens it only for that tenant's reviewers."""
        key_id = self._keys.current
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._ciphers[key_id].encrypt(
            nonce, payload.SerializeToString(), associated_data(key_id, tenant)
        )
        metadata = {"encoding": ENCRYPTED_ENCODING, KEY_ID_METADATA: key_id.encode()}
        if tenant is not None:
            metadata[TENANT_METADATA] = tenant.encode()
        return Payload(metadata=metadata, data=nonce + sealed)

    def decrypt(self, payload: Payload) -> Payload:
        if payload.metadata.get("encoding") != ENCRYPTED_ENCODING:
            return payload  # written before encryption was on
        from cryptography.exceptions import InvalidTag

        key_id = payload.metadata.get(KEY_ID_METADATA, b"").decode(errors="replace")
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            raise PayloadDecryptError(
                f"A payload is encrypted with the key '{key_id}', which SIGNOFF_PAYLOAD_KEYS "
                f"does not hold (it holds {', '.join(self.key_ids)}): add that key back, "
                "after the encrypting one."
            )
        nonce, sealed = payload.data[:NONCE_BYTES], payload.data[NONCE_BYTES:]
        try:
            plain = cipher.decrypt(nonce, sealed, associated_data(key_id, sealed_tenant(payload)))
        except InvalidTag:
            raise PayloadDecryptError(
                f"A payload encrypted with the key '{key_id}' does not authenticate: it was "
                "altered, or the key under that id is not the one that sealed it."
            ) from None
        decoded = Payload()
        decoded.ParseFromString(plain)
        return decoded


def sealed_tenant(payload: Payload) -> str | None:
    """The tenant an encrypted payload says it belongs to (checked when it is opened)."""
    tenant = payload.metadata.get(TENANT_METADATA)
    return None if tenant is None else tenant.decode(errors="replace")


def associated_data(key_id: str, tenant: str | None) -> bytes:
    return key_id.encode() if tenant is None else f"{key_id}\x00{tenant}".encode()


def payload_cipher(settings: Settings) -> PayloadCipher | None:
    """The cipher the settings ask for, or None (no SIGNOFF_PAYLOAD_KEYS: payloads in clear)."""
    if settings.payload_keys is None:
        return None
    return PayloadCipher(parse_payload_keys(settings.payload_keys.get_secret_value()))
