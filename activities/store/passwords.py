"""Reviewer passwords: argon2id hashes (pwdlib's recommended parameters), never plain text.

The hash string carries its own parameters and salt, so stronger parameters later
verify old hashes and `needs_update` tells when to re-hash.
"""

from __future__ import annotations

from functools import lru_cache

from pwdlib import PasswordHash

MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 1024  # argon2 hashes any length; this bounds the work per attempt


class WeakPassword(ValueError):
    """A password we refuse to store; the message says why."""


@lru_cache(maxsize=1)
def _hasher() -> PasswordHash:
    return PasswordHash.recommended()


def check_password_rules(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise WeakPassword(f"The password needs at least {MIN_PASSWORD_LENGTH} characters.")
    if len(password) > MAX_PASSWORD_LENGTH:
        raise WeakPassword(f"The password has more than {MAX_PASSWORD_LENGTH} characters.")


def hash_password(password: str) -> str:
    check_password_rules(password)
    return _hasher().hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    """False for a wrong password and for an account without one; never raises on input."""
    if password_hash is None or len(password) > MAX_PASSWORD_LENGTH:
        # Hash anyway so that an unknown account costs the same time as a wrong password.
        _hasher().verify(password[:MAX_PASSWORD_LENGTH], _dummy_hash())
        return False
    try:
        return _hasher().verify(password, password_hash)
    except Exception:  # a malformed stored hash is a failed sign-in, not a crash
        return False


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return _hasher().hash("not-a-password-anyone-has")
