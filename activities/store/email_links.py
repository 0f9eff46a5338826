"""One-tap decision links for e-mails: single use, minutes long, one reviewer, one action.

Only the code's hash is kept. Opening a link reads it (`read_email_link`) and changes
nothing; the decision's POST spends it (`spend_email_link`) in one transaction, before
the decision is sent: a link spent by a decision the run then refuses stays spent (the
reviewer decides again in the UI). The row stays, with when it was used.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import Engine

from activities.store.database import use_session, write_transaction
from activities.store.errors import StoreError
from activities.store.one_time_codes import code_hash, new_code
from activities.store.slack_schema import EmailLink


@dataclass(frozen=True)
class EmailLinkGrant:
    """What a link lets its reviewer decide."""

    tenant_id: str
    reviewer_id: str
    run_id: str
    action_hash: str
    verdict: str
    expires_at: datetime


RefusalReason = Literal["unknown", "other_reviewer", "used", "expired"]


class EmailLinkRefused(StoreError):
    """The link cannot be used: unknown, used, expired, or another reviewer's."""

    def __init__(self, reason: RefusalReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def issue_email_link(
    engine: Engine, grant: EmailLinkGrant, now: datetime, lifetime: timedelta
) -> tuple[str, EmailLinkGrant]:
    code = new_code()
    expires_at = now + lifetime
    with write_transaction(engine) as session:
        session.add(
            EmailLink(
                code_hash=code_hash(code),
                tenant_id=grant.tenant_id,
                reviewer_id=grant.reviewer_id,
                run_id=grant.run_id,
                action_hash=grant.action_hash,
                verdict=grant.verdict,
                created_at=now,
                expires_at=expires_at,
            )
        )
    return code, EmailLinkGrant(
        grant.tenant_id,
        grant.reviewer_id,
        grant.run_id,
        grant.action_hash,
        grant.verdict,
        expires_at,
    )


def read_email_link(engine: Engine, code: str, reviewer_id: str, now: datetime) -> EmailLinkGrant:
    with use_session(engine) as session:
        return _usable(session.get(EmailLink, code_hash(code)), reviewer_id, now)


def spend_email_link(engine: Engine, code: str, reviewer_id: str, now: datetime) -> EmailLinkGrant:
    with write_transaction(engine) as session:
        row = session.get(EmailLink, code_hash(code), with_for_update=True)
        grant = _usable(row, reviewer_id, now)
        assert row is not None
        row.used_at = now
        return grant


def _usable(row: EmailLink | None, reviewer_id: str, now: datetime) -> EmailLinkGrant:
    if row is None:
        raise EmailLinkRefused(
            "unknown",
            "This decision link is not one we sent. Open the request from the inbox instead.",
        )
    if row.reviewer_id != reviewer_id:
        raise EmailLinkRefused(
            "other_reviewer",
            "This decision link was sent to another reviewer: it cannot decide for you. "
            "Open the request from your inbox instead.",
        )
    if row.used_at is not None:
        raise EmailLinkRefused(
            "used",
            "This decision link was used already: a link decides once. Open the request "
            "from the inbox to see where it stands.",
        )
    if row.expires_at <= now:
        raise EmailLinkRefused(
            "expired", "This decision link has expired. Open the request from the inbox to decide."
        )
    return EmailLinkGrant(
        row.tenant_id,
        row.reviewer_id,
        row.run_id,
        row.action_hash,
        row.verdict,
        row.expires_at,
    )
