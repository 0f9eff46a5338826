"""Reviewers' passkeys in the store: registered (with an audit row), listed, and counted
at each use by the decision service.

A registration is an account change: its audit row (who, which credential, the SHA-256
of its public key) commits with it, in the tenant's chain, so a passkey added later is
on the record. Rows are never deleted by signoff.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, select

from activities.store.account_audit import append_account_event
from activities.store.account_schema import Passkey
from activities.store.database import use_session, write_transaction
from activities.store.errors import StoreError
from activities.store.schema import Reviewer


@dataclass(frozen=True)
class StoredPasskey:
    credential_id: str
    reviewer_id: str
    public_key: str
    sign_count: int
    created_at: datetime


@dataclass(frozen=True)
class NewPasskey:
    """A verified registration, signed by the decision service (`key_id`, `signature`)."""

    credential_id: str
    reviewer_id: str
    public_key: str
    sign_count: int
    created_at: datetime
    key_id: str
    signature: str


class PasskeyTaken(StoreError):
    """The credential is registered already."""


def passkeys_of(engine: Engine, reviewer_id: str) -> list[StoredPasskey]:
    with use_session(engine) as session:
        rows = session.scalars(
            select(Passkey).where(Passkey.reviewer_id == reviewer_id).order_by(Passkey.created_at)
        ).all()
        return [
            StoredPasskey(
                row.credential_id, row.reviewer_id, row.public_key, row.sign_count, row.created_at
            )
            for row in rows
        ]


def add_passkey(engine: Engine, passkey: NewPasskey) -> None:
    """Store it with its audit row, in one transaction."""
    with write_transaction(engine) as session:
        reviewer = session.get(Reviewer, passkey.reviewer_id)
        if reviewer is None:
            raise StoreError(f"There is no reviewer '{passkey.reviewer_id}'.")
        if session.get(Passkey, passkey.credential_id) is not None:
            raise PasskeyTaken("This passkey is registered already.")
        session.add(
            Passkey(
                credential_id=passkey.credential_id,
                reviewer_id=passkey.reviewer_id,
                public_key=passkey.public_key,
                sign_count=passkey.sign_count,
                created_at=passkey.created_at,
                key_id=passkey.key_id,
                signature=passkey.signature,
            )
        )
        fingerprint = hashlib.sha256(passkey.public_key.encode()).hexdigest()
        append_account_event(
            session,
            reviewer.tenant_id,
            passkey.reviewer_id,
            f"passkey registered for '{passkey.reviewer_id}': credential "
            f"{passkey.credential_id[:16]}…, public key sha256 {fingerprint}",
            passkey.created_at,
        )


# What a use's check answers: (why not, or None; the authenticator's new sign count).
UseCheck = Callable[[str, int], tuple[str | None, int]]


def count_use(engine: Engine, reviewer_id: str, credential_id: str, check: UseCheck) -> str | None:
    """Check an assertion against the stored key and count (`check(public_key, count)`),
    and store its new count, in one transaction that locks the row: two uses of one
    assertion cannot both pass. None when it holds; else why not."""
    with write_transaction(engine) as session:
        row = session.get(Passkey, credential_id, with_for_update=True)
        if row is None or row.reviewer_id != reviewer_id:
            return "That passkey is not one registered to you: register it on the Passkeys page."
        problem, sign_count = check(row.public_key, row.sign_count)
        if problem is not None:
            return problem
        row.sign_count = sign_count
        return None
