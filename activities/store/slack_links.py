"""Slack users linked to reviewers, the codes that link them, and Slack requests seen.

Design note. A link needs two proofs, from two sides, and nobody else can supply
either: Slack's signed request says which Slack user pressed a button (a code is made
for that user, and shown to them alone, ephemerally); the UI's session says which
reviewer redeemed it. So an administrator cannot link someone else's Slack account
silently: they would need that person's Slack session to get the code and that
person's reviewer session to redeem it. A code is single use and lives minutes; only
its hash is kept. Every link and unlink is an audit row (account_audit.py), so who acted
as whom from Slack can be proven later from the store alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, delete, select
from sqlalchemy.exc import IntegrityError

from activities.store.account_audit import append_account_event
from activities.store.database import use_session, write_transaction
from activities.store.errors import StoreError
from activities.store.one_time_codes import code_hash, new_code
from activities.store.schema import Reviewer
from activities.store.slack_schema import SlackLink, SlackLinkCode, SlackRequest


@dataclass(frozen=True)
class SlackUser:
    tenant_id: str
    team_id: str
    user_id: str


class LinkCodeRefused(StoreError):
    """The code cannot link: unknown, used, expired, or for another tenant. Says which."""


def issue_link_code(engine: Engine, user: SlackUser, lifetime: timedelta, now: datetime) -> str:
    code = new_code()
    with write_transaction(engine) as session:
        session.execute(delete(SlackLinkCode).where(SlackLinkCode.expires_at <= now))
        session.add(
            SlackLinkCode(
                code_hash=code_hash(code),
                tenant_id=user.tenant_id,
                team_id=user.team_id,
                slack_user_id=user.user_id,
                created_at=now,
                expires_at=now + lifetime,
            )
        )
    return code


def read_link_code(engine: Engine, code: str, now: datetime) -> SlackUser:
    """The Slack user a code would link (it stays unused); LinkCodeRefused otherwise."""
    with use_session(engine) as session:
        row = session.get(SlackLinkCode, code_hash(code))
        _check_code(row, now)
        assert row is not None
        return SlackUser(row.tenant_id, row.team_id, row.slack_user_id)


def redeem_link_code(engine: Engine, code: str, reviewer_id: str, now: datetime) -> SlackUser:
    """Link the code's Slack user to `reviewer_id` (who redeemed it, signed in), once.

    A reviewer has one Slack user per workspace: a new link replaces their old one, and a
    Slack user linked to someone else moves to this reviewer (both on the record)."""
    with write_transaction(engine) as session:
        row = session.get(SlackLinkCode, code_hash(code), with_for_update=True)
        _check_code(row, now)
        assert row is not None
        reviewer = session.get(Reviewer, reviewer_id)
        if reviewer is None or not reviewer.active or reviewer.tenant_id != row.tenant_id:
            raise LinkCodeRefused(
                "This link is for a Slack workspace of another tenant than yours: nothing "
                "was linked. Sign in as the reviewer the Slack account belongs to."
            )
        row.used_at = now
        user = SlackUser(row.tenant_id, row.team_id, row.slack_user_id)
        session.execute(
            delete(SlackLink).where(
                SlackLink.tenant_id == user.tenant_id,
                SlackLink.team_id == user.team_id,
                (SlackLink.slack_user_id == user.user_id) | (SlackLink.reviewer_id == reviewer_id),
            )
        )
        session.add(
            SlackLink(
                tenant_id=user.tenant_id,
                team_id=user.team_id,
                slack_user_id=user.user_id,
                reviewer_id=reviewer_id,
                linked_at=now,
            )
        )
        append_account_event(
            session,
            user.tenant_id,
            reviewer_id,
            f"linked Slack user {user.user_id} of workspace {user.team_id} to {reviewer_id}",
            now,
        )
    return user


def unlink(engine: Engine, tenant_id: str, reviewer_id: str, now: datetime) -> int:
    """Remove the reviewer's Slack links; returns how many there were."""
    with write_transaction(engine) as session:
        rows = session.scalars(
            select(SlackLink).where(
                SlackLink.tenant_id == tenant_id, SlackLink.reviewer_id == reviewer_id
            )
        ).all()
        for row in rows:
            session.delete(row)
            append_account_event(
                session,
                tenant_id,
                reviewer_id,
                f"unlinked Slack user {row.slack_user_id} of workspace {row.team_id} "
                f"from {reviewer_id}",
                now,
            )
        return len(rows)


def linked_reviewer(engine: Engine, user: SlackUser) -> str | None:
    with use_session(engine) as session:
        row = session.get(SlackLink, (user.tenant_id, user.team_id, user.user_id))
        return None if row is None else row.reviewer_id


def links_of(engine: Engine, reviewer_id: str) -> list[SlackUser]:
    with use_session(engine) as session:
        rows = session.scalars(select(SlackLink).where(SlackLink.reviewer_id == reviewer_id))
        return [SlackUser(row.tenant_id, row.team_id, row.slack_user_id) for row in rows]


def first_use_of_signature(
    engine: Engine,
    tenant_id: str,
    signature_hash: str,
    signed_at: datetime,
    now: datetime,
    keep: timedelta,
) -> bool:
    """True the first time a signature is seen; False for a replay. Rows older than
    `keep` (beyond the timestamp window, where a replay is stale anyway) are pruned."""
    try:
        with write_transaction(engine) as session:
            session.execute(delete(SlackRequest).where(SlackRequest.signed_at < now - keep))
            if session.get(SlackRequest, signature_hash) is not None:
                return False
            session.add(
                SlackRequest(
                    signature_hash=signature_hash,
                    tenant_id=tenant_id,
                    signed_at=signed_at,
                    received_at=now,
                )
            )
    except IntegrityError:  # the same request, taken by another process meanwhile
        return False
    return True


def _check_code(row: SlackLinkCode | None, now: datetime) -> None:
    if row is None:
        raise LinkCodeRefused(
            "This link code is not one we gave out. Press a button in Slack again to get "
            "a new link."
        )
    if row.used_at is not None:
        raise LinkCodeRefused(
            "This link was used already. Press a button in Slack again to get a new one."
        )
    if row.expires_at <= now:
        raise LinkCodeRefused(
            "This link has expired. Press a button in Slack again to get a new one."
        )
