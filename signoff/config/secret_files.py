"""Secrets kept in SIGNOFF_HOME: made on first use (mode 0600), refused when weak.

The reviewer UI's cookie secret and the decision key share these rules: at least
MIN_SECRET_BYTES bytes, and a file that only its owner can read. A secret that fails
either is refused at start, with a message that says how to fix it, rather than used.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from pydantic import SecretStr

MIN_SECRET_BYTES = 32
GENERATED_SECRET_BYTES = 48


class WeakSecret(Exception):
    """A secret too short, or a secret file others can read; the message says what to do."""


def load_secret(explicit: SecretStr | None, path: Path, variable: str) -> str:
    """The explicit secret (an environment variable), or the file's, made if absent."""
    if explicit is not None:
        value = explicit.get_secret_value()
        if len(value.encode()) < MIN_SECRET_BYTES:
            raise WeakSecret(
                f"{variable} is {len(value.encode())} bytes long; it must be at least "
                f"{MIN_SECRET_BYTES}. Generate one with `python3 -c 'import secrets; "
                "print(secrets.token_urlsafe(48))'`."
            )
        return value
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_private(path, variable)
    with os.fdopen(descriptor, "w") as handle:
        secret = secrets.token_urlsafe(GENERATED_SECRET_BYTES)
        handle.write(secret)
    return secret


def _read_private(path: Path, variable: str) -> str:
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise WeakSecret(
            f"{path} can be read by other users (mode {stat.S_IMODE(mode):o}). Run "
            f"`chmod 600 {path}`, or set {variable}."
        )
    value = path.read_text().strip()
    if len(value.encode()) < MIN_SECRET_BYTES:
        raise WeakSecret(
            f"{path} holds a secret shorter than {MIN_SECRET_BYTES} bytes. Delete it (a new "
            f"one is made on the next start), or set {variable}."
        )
    return value
