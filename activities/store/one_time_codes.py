"""Random one-time codes: what a link carries, and the hash the store keeps of it."""

from __future__ import annotations

import hashlib
import secrets

CODE_BYTES = 32


def new_code() -> str:
    return secrets.token_urlsafe(CODE_BYTES)


def code_hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()
