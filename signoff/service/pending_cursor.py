"""Where a page of pending actions starts (a cursor on soonest expiry, then hash), and
the line printed above it. Light on purpose: `signoff pending` reads its pages from the
store and must not load the Temporal client to do so."""

from __future__ import annotations

import re
from datetime import datetime

from signoff.service.paging import InvalidCursor, decode_cursor, encode_cursor

Position = tuple[datetime, str]
CURSOR_KIND = "p1"
HASH_PATTERN = re.compile(r"^[0-9a-f]{64}$")


def hash_cursor(kind: str, key: str, action_hash: str) -> str:
    """A cursor of `kind` on an order's key, ties broken by the action's hash."""
    return encode_cursor(kind, f"{key}|{action_hash}".encode())


def hash_cursor_parts(kind: str, after: str) -> tuple[str, str]:
    """The key and the hash of a `hash_cursor`; InvalidCursor for anything else."""
    try:
        key, _, action_hash = decode_cursor(kind, after).decode("ascii").partition("|")
    except UnicodeDecodeError:
        raise InvalidCursor() from None
    if not HASH_PATTERN.match(action_hash):
        raise InvalidCursor()
    return key, action_hash


def pending_cursor(position: Position) -> str:
    expires_at, action_hash = position
    return hash_cursor(CURSOR_KIND, expires_at.isoformat(), action_hash)


def cursor_position(after: str) -> Position:
    """The position a cursor names; InvalidCursor for one this listing did not give."""
    expiry, action_hash = hash_cursor_parts(CURSOR_KIND, after)
    try:
        expires_at = datetime.fromisoformat(expiry)
    except ValueError:
        raise InvalidCursor() from None
    if expires_at.tzinfo is None:
        raise InvalidCursor()
    return (expires_at, action_hash)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def pending_summary(total: int, waiting_runs: int, first: int, shown: int) -> str:
    """The line above a page: what is counted, and which part of it this page shows."""
    if total == 0 and waiting_runs == 0:
        return "nothing is waiting for a decision"
    where = f"{first + 1}-{first + shown} on this page" if shown else "none on this page"
    return (
        f"{plural(total, 'request')} waiting for a decision (in {plural(waiting_runs, 'run')}), "
        f"soonest expiry first; {where}"
    )


def unread_warning(unread_runs: int) -> str:
    return (
        f"warning: {plural(unread_runs, 'waiting run')} could not be read (no worker answered); "
        "their requests are not listed. Start a worker (`signoff worker`) and list again."
    )
