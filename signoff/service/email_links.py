"""One-tap decision links for e-mails, for the faces and for whoever sends the e-mail.

A link is bound to one reviewer, one run's action (its hash) and one verdict; it is
single use and lives SIGNOFF_EMAIL_LINK_MINUTES. It is not a credential: opening it
needs the reviewer's own session (a forwarded e-mail decides nothing for its new
reader), its page decides nothing, and its POST goes through the same decision service
as the decision page (activities/store/email_links.py keeps the rows).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from activities.store import email_links as link_rows
from activities.store.email_links import (
    EmailLinkGrant,
    EmailLinkRefused,
    issue_email_link,
)
from activities.store.reviewers import get_reviewer
from signoff.config.settings import Settings
from signoff.service.handles import Store, engine_of, on_store
from workflows.actions import Verdict


class NoSuchReviewer(ValueError):
    """The link would be for a reviewer who does not exist or is disabled."""


def decision_link(
    store: Store,
    settings: Settings,
    reviewer_name: str,
    run_id: str,
    action_hash: str,
    verdict: Verdict,
    now: datetime | None = None,
) -> tuple[str, EmailLinkGrant]:
    """The URL to put in the reviewer's e-mail, and what it grants."""
    engine = engine_of(store)
    reviewer = get_reviewer(engine, reviewer_name)
    if reviewer is None or not reviewer.active:
        raise NoSuchReviewer(f"No active reviewer is named {reviewer_name!r}.")
    asked = EmailLinkGrant(
        reviewer.tenant_id, reviewer.id, run_id, action_hash, verdict, now or datetime.now(UTC)
    )
    code, grant = issue_email_link(
        engine, asked, now or datetime.now(UTC), timedelta(minutes=settings.email_link_minutes)
    )
    return f"{settings.ui_base_url.rstrip('/')}/decide/{code}", grant


__all__ = [
    "EmailLinkGrant",
    "EmailLinkRefused",
    "NoSuchReviewer",
    "decision_link",
    "read_email_link",
    "spend_email_link",
]

# The store layer's calls, each taking the face's Store (handles.py).
read_email_link = on_store(link_rows.read_email_link)
spend_email_link = on_store(link_rows.spend_email_link)
