"""What an administrator does with API tokens: issue one, revoke one by its id, revoke
all of a reviewer's, list a reviewer's. Each goes through `account_admin.administered`
(proof, change and audit row in one transaction), like every account change
(reviewer_accounts.py).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.store.account_admin import Changed, administered
from activities.store.account_schema import ApiToken
from activities.store.api_tokens import moment, new_token, revoke_all_of, tokens_of
from activities.store.credentials import Credential
from activities.store.database import use_session
from activities.store.errors import StoreError
from activities.store.reviewers import require_reviewer
from activities.store.schema import Reviewer


class UnknownToken(StoreError):
    def __init__(self, token_id: int) -> None:
        super().__init__(
            f"There is no API token {token_id}. `signoff user tokens NAME` lists a "
            "reviewer's tokens with their ids."
        )


def issue_token(
    engine: Engine,
    admin: Credential | None,
    name: str,
    lifetime: timedelta,
    now: datetime | None = None,
) -> tuple[Reviewer, ApiToken, str]:
    """A new API token for the reviewer, valid for `lifetime`; the token is returned
    once and only its hash is kept. Raises NotAdministrator or UnknownReviewer."""

    def change(
        session: Session, _acting: Reviewer, at: datetime
    ) -> Changed[tuple[Reviewer, ApiToken, str]]:
        reviewer = require_reviewer(session, name)
        row, token = new_token(session, reviewer, lifetime, at)
        what = f"user token {reviewer.id}: token {row.id} issued, expires {moment(row.expires_at)}"
        return Changed((reviewer, row, token), reviewer.tenant_id, what)

    return administered(engine, admin, f"user token {name}", change, target=name, now=now)


def revoke_token(
    engine: Engine, admin: Credential | None, token_id: int, now: datetime | None = None
) -> ApiToken:
    """End one API token now (a revoked or expired one stays as it was). Raises
    NotAdministrator or UnknownToken."""

    def change(session: Session, _acting: Reviewer, at: datetime) -> Changed[ApiToken]:
        row = session.get(ApiToken, token_id)
        if row is None:
            raise UnknownToken(token_id)
        owner = require_reviewer(session, row.reviewer_id)
        if row.revoked_at is None:
            row.revoked_at = at
        what = f"user token revoke {token_id}: token {token_id} of {owner.id} revoked"
        return Changed(row, owner.tenant_id, what)

    with use_session(engine) as session:  # a refusal's record goes to the owner's tenant
        row = session.get(ApiToken, token_id)
        owner = row.reviewer_id if row is not None else None
    return administered(
        engine, admin, f"user token revoke {token_id}", change, target=owner, now=now
    )


def revoke_tokens(
    engine: Engine, admin: Credential | None, name: str, now: datetime | None = None
) -> int:
    """End every live API token of the reviewer; how many there were. Raises
    NotAdministrator or UnknownReviewer."""

    def change(session: Session, _acting: Reviewer, at: datetime) -> Changed[int]:
        reviewer = require_reviewer(session, name)
        ended = revoke_all_of(session, reviewer.id, at)
        what = f"user token {reviewer.id} --revoke: {ended} API token(s) revoked"
        return Changed(ended, reviewer.tenant_id, what)

    return administered(engine, admin, f"user token {name} --revoke", change, target=name, now=now)


def listed_tokens(
    engine: Engine, admin: Credential | None, name: str, now: datetime | None = None
) -> list[ApiToken]:
    """The reviewer's API tokens (ids and times; only hashes are kept), shown to an
    administrator only: which tokens live, and when they end, tells an attacker which
    to aim at. The listing is on the audit like a change. Raises NotAdministrator or
    UnknownReviewer."""

    def change(session: Session, _acting: Reviewer, _at: datetime) -> Changed[list[ApiToken]]:
        reviewer = require_reviewer(session, name)
        rows = tokens_of(session, reviewer.id)
        what = f"user tokens {reviewer.id}: {len(rows)} API token(s) listed"
        return Changed(rows, reviewer.tenant_id, what)

    return administered(engine, admin, f"user tokens {name}", change, target=name, now=now)
