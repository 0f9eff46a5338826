"""Secrets kept in SIGNOFF_HOME: made on first use (mode 0600), refused when weak.

The reviewer UI's cookie secret and the decision key share these rules: at least
MIN_SECRET_BYTES bytes, and a file that only its owner can read or write. A secret that
fails either is refused at start, with a message that says how to fix it, rather than
used.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from pathlib import Path

from pydantic import SecretStr

MIN_SECRET_BYTES = 32
GENERATED_SECRET_BYTES = 48
GENERATE_HINT = "python3 -c 'import secrets; print(secrets.token_urlsafe(48))'"


class WeakSecret(ValueError):
    """A secret too short, or a secret file others can read; the message says what to do."""


def load_secret(explicit: SecretStr | None, path: Path, variable: str) -> str:
    """The explicit secret (an environment variable), or the file's, made if absent."""
    if explicit is not None:
        value = explicit.get_secret_value()
        if len(value.encode()) < MIN_SECRET_BYTES:
            raise WeakSecret(
                f"{variable} has {len(value.encode())} bytes; it needs at least "
                f"{MIN_SECRET_BYTES}. Make one with `{GENERATE_HINT}`, or unset it to use "
                f"a generated {path}."
            )
        return value
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        return _read_private(path)
    # Written whole under a private name, then linked into place: processes that start
    # together on one home (workers scaled out on a shared volume) either make the file
    # or read one already complete, never one still empty.
    secret = secrets.token_urlsafe(GENERATED_SECRET_BYTES)
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secret)
        os.link(draft, path)
    except FileExistsError:
        return _read_private(path)
    finally:
        draft.unlink(missing_ok=True)
    return secret


def read_private_file(path: Path) -> str:
    """The text of a file only its owner can read or write; WeakSecret otherwise."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise WeakSecret(
            f"{path} can be read or written by other users (mode {mode:o}). Run "
            f"`chmod 600 {path}`, and replace the secret if someone may have read it."
        )
    return path.read_text()


def _read_private(path: Path) -> str:
    value = read_private_file(path).strip()
    if len(value.encode()) < MIN_SECRET_BYTES:
        raise WeakSecret(
            f"{path} holds {len(value.encode())} bytes; it needs at least "
            f"{MIN_SECRET_BYTES}. Delete it to have a new one generated."
        )
    return value


def rotation_list(secrets: object) -> list[str] | None:
    """A file's secret, or its list of them (the current one first, the others still
    accepted while a rotation is under way), as a list; None when it is neither."""
    listed = [secrets] if isinstance(secrets, str) else secrets
    if not isinstance(listed, list) or not listed or not all(isinstance(s, str) for s in listed):
        return None
    return listed


def short_secret_bytes(secrets: list[str]) -> int | None:
    """The size of the first secret shorter than MIN_SECRET_BYTES; None if none is."""
    return next((len(s.encode()) for s in secrets if len(s.encode()) < MIN_SECRET_BYTES), None)


def read_private_json(path: Path, variable: str, problem: type[Exception]) -> object:
    """The JSON of a private file (mode 0600) that setting `variable` names; whatever is
    wrong (missing, readable by others, unreadable, not JSON) is `problem`, in words."""
    try:
        text = read_private_file(path)
    except FileNotFoundError:
        raise problem(f"{variable} names {path}, which does not exist.") from None
    except WeakSecret as error:
        raise problem(str(error)) from None
    except OSError as error:
        raise problem(f"Cannot read {path}: {error.strerror}.") from None
    try:
        return json.loads(text)
    except ValueError as error:
        raise problem(f"{path} is not valid JSON: {error}.") from None
