"""The decision keys on disk: the service's private key ring and the public key set.

Design note. Two files, so that each host holds only what it needs:
- the key ring (`Settings.signing_keys_path`, mode 0600), the private keys and which of
  them signs now. Only the decision service (the reviewer UI/API server) has it;
- the public key set (`Settings.public_keys_path`), every key id with its public key
  and, once retired, when. Workers and the ledger (the refund's own check) load it.
  Nothing in it is secret, but whoever can write it can add a key and so sign: it must
  be writable by its owner only.

Which keys a verifier trusts is not the file's to say: a key set that someone on a
worker's host wrote a key into (by hand, or with `signoff keys init` run there) would
otherwise let that host sign. So a verifier trusts only the key ids its configuration
pins (`SIGNOFF_TRUSTED_KEY_IDS`, set where the process is deployed: a Kubernetes
manifest, a unit file), and ignores, with a warning, every other entry of the set.
`signoff worker` does not start without a pin. A process that holds the key ring is
the decision service's own host (`signoff dev`, `make demo`, the CLI in that home): it
could sign with those keys anyway, so unpinned it trusts the set it writes. We chose
pinned ids over a key set signed by an offline root key: the same guarantee (only the
deployment's configuration adds a trusted key) with no second key to keep, and a
rotation is one more id in the pin, given to the workers before they see the new key.
The key ring and the public set are changed only where a decision service is
configured (`require_decision_service`): elsewhere `signoff keys` refuses, and says so.

Rotation adds a key to both and makes it the signer; the old public keys keep
verifying until `retire` marks them, and drops their private halves. A file is
replaced whole (written beside it, then renamed), so a reader never sees half of one,
and changed under a lock beside the key ring, so that two UI servers starting together
on one fresh home make one key, not two of which only one is published.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from signoff.config.decision_signatures import (
    AuditKeys,
    DecisionSigner,
    VerificationKeys,
    raw_public_key,
)
from signoff.config.secret_files import WeakSecret
from signoff.config.settings import Settings
from workflows.decision_proof import KEY_ID_PATTERN, key_id_of

FORMAT_VERSION = 1
PIN_VARIABLE = "SIGNOFF_TRUSTED_KEY_IDS"

log = logging.getLogger(__name__)


class DecisionKeyError(WeakSecret):
    """A key file missing, unreadable, malformed or open to others; says what to do."""


@dataclass(frozen=True)
class PublicKeyEntry:
    key_id: str
    public_key: str  # the raw 32-byte Ed25519 public key, hex
    created_at: datetime
    retired_at: datetime | None = None


def load_signer(settings: Settings) -> DecisionSigner:
    """The key the decision service signs with now; DecisionKeyError on any other host."""
    path = settings.signing_keys_path
    if not path.exists():
        raise DecisionKeyError(
            f"This host holds no decision signing key ({path}): only the decision service "
            "(the reviewer UI/API server) signs decisions. Decide through it (`signoff "
            "approve` sends the decision there), or, on the decision service's host, make "
            "a key with `signoff keys rotate`."
        )
    ring = _read_json(path, private=True)
    try:
        private_keys: dict[str, str] = ring["private_keys"]
        raw = bytes.fromhex(private_keys[ring["signing"]])
        signer = DecisionSigner(Ed25519PrivateKey.from_private_bytes(raw))
    except (KeyError, TypeError, ValueError):
        raise DecisionKeyError(
            f"{path} is not a decision key ring signoff can read. Restore it from a backup, "
            "or move it away and make a new key with `signoff keys rotate`."
        ) from None
    return signer


def load_verification_keys(settings: Settings) -> VerificationKeys:
    """The public keys decisions may be signed with: the pinned ones of the public set;
    DecisionKeyError when missing or when nothing is pinned."""
    path = settings.public_keys_path
    if not path.exists():
        raise DecisionKeyError(
            f"No decision public keys at {path}: this process checks decisions and needs "
            "them. Copy the decision service's decision-public-keys.json here (or set "
            "SIGNOFF_DECISION_PUBLIC_KEYS_FILE), or make the first key with `signoff keys "
            "rotate` on the decision service's host."
        )
    entries = trusted_entries(settings)
    keys = {
        entry.key_id: Ed25519PublicKey.from_public_bytes(bytes.fromhex(entry.public_key))
        for entry in entries
        if entry.retired_at is None
    }
    retired = frozenset(entry.key_id for entry in entries if entry.retired_at is not None)
    return VerificationKeys(keys, retired)


def load_audit_keys(settings: Settings) -> AuditKeys:
    """Every trusted published public key, retired ones too (the audit checks past
    decisions); DecisionKeyError when this host has no public key file or pins none."""
    if not settings.public_keys_path.exists():
        raise DecisionKeyError(
            f"No decision public keys at {settings.public_keys_path}: checking the "
            "decisions' signatures needs them. Copy the decision service's "
            "decision-public-keys.json here (or set SIGNOFF_DECISION_PUBLIC_KEYS_FILE)."
        )
    entries = trusted_entries(settings)
    return AuditKeys(
        keys={
            entry.key_id: Ed25519PublicKey.from_public_bytes(bytes.fromhex(entry.public_key))
            for entry in entries
        },
        retired_at={
            entry.key_id: entry.retired_at for entry in entries if entry.retired_at is not None
        },
    )


def pinned_key_ids(settings: Settings) -> frozenset[str] | None:
    """The key ids this process's configuration pins; None when it pins none."""
    text = settings.trusted_key_ids
    if text is None or not text.strip():
        return None
    ids = frozenset(part.strip().lower() for part in text.split(",") if part.strip())
    malformed = sorted(key_id for key_id in ids if not re.fullmatch(KEY_ID_PATTERN, key_id))
    if malformed:
        raise DecisionKeyError(
            f"{PIN_VARIABLE} names {', '.join(malformed)}, which is not a decision key id "
            "(16 hex digits). Give the ids `signoff keys list` shows on the decision "
            "service's host, comma-separated."
        )
    return ids


def trusted_entries(settings: Settings) -> list[PublicKeyEntry]:
    """The entries of the public set this process trusts: the pinned ones, or on the
    decision service's own host (it holds the ring), unpinned, all. Others are ignored
    with a warning; DecisionKeyError when none is left."""
    entries = public_entries(settings)
    pinned = pinned_key_ids(settings)
    if pinned is None:
        if settings.signing_keys_path.exists():
            return entries  # the set this host's own decision service writes
        raise _not_pinned()
    for entry in entries:
        if entry.key_id not in pinned:
            log.warning(
                "decision key %s in %s is not pinned in %s: ignored, it verifies nothing here",
                entry.key_id,
                settings.public_keys_path,
                PIN_VARIABLE,
            )
    trusted = [entry for entry in entries if entry.key_id in pinned]
    if not trusted:
        raise DecisionKeyError(
            f"None of the decision keys {PIN_VARIABLE} pins ({', '.join(sorted(pinned))}) "
            f"is in {settings.public_keys_path}. Copy the decision service's public key set "
            "here, or pin the ids `signoff keys list` shows on its host."
        )
    return trusted


def public_entries(settings: Settings) -> list[PublicKeyEntry]:
    path = settings.public_keys_path
    if not path.exists():
        return []
    document = _read_json(path, private=False)
    try:
        entries = [
            PublicKeyEntry(
                key_id=item["key_id"],
                public_key=item["public_key"],
                created_at=datetime.fromisoformat(item["created_at"]),
                retired_at=(
                    datetime.fromisoformat(item["retired_at"]) if item.get("retired_at") else None
                ),
            )
            for item in document["keys"]
        ]
        for entry in entries:
            key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(entry.public_key))
            if key_id_of(raw_public_key(key)) != entry.key_id:
                raise ValueError(entry.key_id)
    except (KeyError, TypeError, ValueError):
        raise DecisionKeyError(
            f"{path} is not a decision public key set signoff can read (or a key id does not "
            "match its key). Copy it again from the decision service's host."
        ) from None
    return entries


def require_pinned(settings: Settings) -> frozenset[str]:
    """The pinned key ids; DecisionKeyError when none are: `signoff worker` trusts only
    what its configuration names, even beside a key ring (which anyone on its host could
    have written)."""
    pinned = pinned_key_ids(settings)
    if pinned is None:
        raise _not_pinned()
    return pinned


def _not_pinned() -> DecisionKeyError:
    return DecisionKeyError(
        f"This host trusts no decision key: {PIN_VARIABLE} is not set. Set it to the ids "
        "of the decision service's keys (`signoff keys list` on its host, comma-"
        "separated) in the process's own configuration; a key the public key set holds "
        "but the configuration does not name is never trusted."
    )


def require_decision_service(settings: Settings) -> None:
    """DecisionKeyError unless this host is configured as the decision service: it holds
    the key ring, or its configuration names where the ring is to be
    (SIGNOFF_DECISION_SIGNING_KEYS_FILE). A guard against a key made on the wrong host;
    what a verifier trusts is its pin (`trusted_entries`), whatever a host makes."""
    if settings.signing_keys_path.exists() or settings.decision_signing_keys_file is not None:
        return
    raise DecisionKeyError(
        f"No decision service is configured on this host: it holds no key ring "
        f"({settings.signing_keys_path}) and SIGNOFF_DECISION_SIGNING_KEYS_FILE is not set. "
        "Decision keys are made and rotated only on the decision service's host (the "
        "reviewer UI/API server's); a key made here would sign nothing any worker "
        f"trusts, since workers trust only the ids {PIN_VARIABLE} pins. Run this command "
        "there, or set SIGNOFF_DECISION_SIGNING_KEYS_FILE if this host is the decision "
        "service."
    )


def signing_key_id(settings: Settings) -> str | None:
    """The id of the key that signs now, on the decision service's host; else None."""
    if not settings.signing_keys_path.exists():
        return None
    return load_signer(settings).key_id


def ensure_key_ring(settings: Settings) -> DecisionSigner:
    """The decision service's signer, made at its first start (`signoff dev`, `make demo`)."""
    with _changing(settings):
        if not settings.signing_keys_path.exists():
            _rotate(settings, None, None)
    return load_signer(settings)


def rotate(
    settings: Settings, now: datetime | None = None, key: Ed25519PrivateKey | None = None
) -> PublicKeyEntry:
    """A new signing key (`key`, or one generated); the keys before it keep verifying
    until retired."""
    with _changing(settings):
        return _rotate(settings, now, key)


def _rotate(
    settings: Settings, now: datetime | None, key: Ed25519PrivateKey | None
) -> PublicKeyEntry:
    ring_path = settings.signing_keys_path
    ring: dict[str, Any] = (
        _read_json(ring_path, private=True)
        if ring_path.exists()
        else {"version": FORMAT_VERSION, "private_keys": {}}
    )
    new = key or Ed25519PrivateKey.generate()
    signer = DecisionSigner(new)
    raw = new.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    ring["private_keys"][signer.key_id] = raw.hex()
    ring["signing"] = signer.key_id
    entry = PublicKeyEntry(
        key_id=signer.key_id,
        public_key=raw_public_key(new.public_key()).hex(),
        created_at=now or datetime.now(UTC),
    )
    # The public key first: a decision signed with the new key must find it.
    _write_public(settings, [*public_entries(settings), entry])
    _write_json(ring_path, ring, mode=0o600)
    return entry


def retire(settings: Settings, key_id: str, now: datetime | None = None) -> PublicKeyEntry:
    """Stop `key_id` from verifying (and from signing); refused for the current signer."""
    with _changing(settings):
        return _retire(settings, key_id, now)


def _retire(settings: Settings, key_id: str, now: datetime | None) -> PublicKeyEntry:
    entries = public_entries(settings)
    found = [entry for entry in entries if entry.key_id == key_id]
    if not found:
        known = ", ".join(entry.key_id for entry in entries) or "none"
        raise DecisionKeyError(
            f"There is no decision key '{key_id}' (known: {known}). `signoff keys list` shows them."
        )
    if found[0].retired_at is not None:
        return found[0]
    if key_id == signing_key_id(settings):
        raise DecisionKeyError(
            f"Decision key {key_id} signs decisions now: run `signoff keys rotate` first, "
            "then retire it."
        )
    retired = PublicKeyEntry(
        found[0].key_id, found[0].public_key, found[0].created_at, now or datetime.now(UTC)
    )
    _write_public(settings, [retired if entry.key_id == key_id else entry for entry in entries])
    ring_path = settings.signing_keys_path
    if ring_path.exists():
        ring = _read_json(ring_path, private=True)
        ring["private_keys"].pop(key_id, None)
        _write_json(ring_path, ring, mode=0o600)
    return retired


@contextmanager
def _changing(settings: Settings) -> Iterator[None]:
    lock_path = settings.signing_keys_path.with_name(".decision-keys.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # releases the lock


def _write_public(settings: Settings, entries: list[PublicKeyEntry]) -> None:
    document = {
        "version": FORMAT_VERSION,
        "keys": [
            {
                "key_id": entry.key_id,
                "public_key": entry.public_key,
                "created_at": entry.created_at.isoformat(),
                "retired_at": entry.retired_at.isoformat() if entry.retired_at else None,
            }
            for entry in entries
        ],
    }
    _write_json(settings.public_keys_path, document, mode=0o644)


def _read_json(path: Path, *, private: bool) -> dict[str, Any]:
    mode = stat.S_IMODE(path.stat().st_mode)
    # The ring must stay secret; the public set must not be changed by others.
    forbidden = 0o077 if private else 0o022
    if mode & forbidden:
        what = "read or written" if private else "written"
        raise DecisionKeyError(
            f"{path} can be {what} by other users (mode {mode:o}). Run `chmod "
            f"{'600' if private else '644'} {path}`"
            + (", and rotate the key if someone may have read it." if private else ".")
        )
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError):
        raise DecisionKeyError(f"{path} cannot be read as JSON; restore it.") from None
    if not isinstance(document, dict):
        raise DecisionKeyError(f"{path} is not a signoff decision key file; restore it.")
    return document


def _write_json(path: Path, document: dict[str, Any], *, mode: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(descriptor, "w") as handle:
            json.dump(document, handle, indent=2)
            handle.write("\n")
        os.chmod(draft, mode)  # whatever the umask
        os.replace(draft, path)
    finally:
        draft.unlink(missing_ok=True)
