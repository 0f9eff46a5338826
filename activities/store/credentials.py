"""Who a credential proves: a reviewer's own password or one of their API tokens.

Read inside the caller's transaction, so that the proof and the change it authorizes
see the same rows: an administrator disabled or stripped of the role meanwhile proves
nothing. A wrong password, an unknown name and an account without a password cost the
same argon2 work and get the same sentence (passwords.py): nobody learns which names
exist.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from sqlalchemy.orm import Session

from activities.store.api_tokens import Proof, check_token
from activities.store.passwords import verify_password
from activities.store.reviewers import find_reviewer

CredentialKind = Literal["password", "token"]


@dataclass(frozen=True)
class Credential:
    """A name and the secret that is to prove it (never printed: repr hides it)."""

    name: str
    secret: str = field(repr=False)
    kind: CredentialKind = "password"


def prove(session: Session, credential: Credential, now: datetime) -> Proof:
    """The active reviewer the credential proves, or why it proves no one."""
    if credential.kind == "token":
        proof = check_token(session, credential.secret, now)
        if proof.reviewer is not None and proof.reviewer.id != find_id(session, credential.name):
            return Proof(None, f"That API token is not '{credential.name}''s.")
        return proof
    reviewer = find_reviewer(session, credential.name)
    stored_hash = reviewer.password_hash if reviewer is not None else None
    # Verified even for an unknown name (against no hash): the same work either way.
    if not verify_password(credential.secret, stored_hash) or reviewer is None:
        return Proof(
            None,
            f"Wrong password for '{credential.name}', or no such reviewer with a password.",
        )
    if not reviewer.active:
        return Proof(None, f"Reviewer '{reviewer.id}' is disabled.")
    return Proof(reviewer)


def find_id(session: Session, name: str) -> str | None:
    reviewer = find_reviewer(session, name)
    return reviewer.id if reviewer is not None else None
