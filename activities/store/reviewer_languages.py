"""The language each reviewer chose for the reviewer UI (`reviewer_languages`).

A preference, not a permission: it changes the words a page is written in, never what
a reviewer may see or decide. Which tags are valid is the service's to say
(signoff/service/languages.py); the store keeps what it is given.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.store.account_admin import Changed, administered
from activities.store.account_schema import ReviewerLanguage
from activities.store.credentials import Credential
from activities.store.database import use_session, write_transaction
from activities.store.reviewers import require_reviewer
from activities.store.schema import Reviewer


def language_of(source: Engine, reviewer_id: str) -> str | None:
    """The tag the reviewer chose, or None when they chose none."""
    with use_session(source) as session:
        return language_of_row(session, reviewer_id)


def set_language(engine: Engine, name: str, language: str | None) -> str:
    """The reviewer's own choice (the UI's language page): sets, or with None clears, the
    language of the reviewer named `name` (any case); returns the reviewer's id. Raises
    UnknownReviewer."""
    with write_transaction(engine) as session:
        return _write(session, require_reviewer(session, name), language)


def change_language(
    engine: Engine,
    admin: Credential | None,
    name: str,
    language: str | None,
    now: datetime | None = None,
) -> str:
    """An administrator's change (`signoff user language`), on the audit's record like
    every account change. Raises NotAdministrator or UnknownReviewer."""

    def change(session: Session, _acting: Reviewer, _at: datetime) -> Changed[str]:
        reviewer = require_reviewer(session, name)
        before = language_of_row(session, reviewer.id) or "auto"
        _write(session, reviewer, language)
        what = f"user language {reviewer.id}: {before} -> {language or 'auto'}"
        return Changed(reviewer.id, reviewer.tenant_id, what)

    return administered(engine, admin, f"user language {name}", change, target=name, now=now)


def language_of_row(session: Session, reviewer_id: str) -> str | None:
    row = session.get(ReviewerLanguage, reviewer_id)
    return row.language if row is not None else None


def _write(session: Session, reviewer: Reviewer, language: str | None) -> str:
    row = session.get(ReviewerLanguage, reviewer.id)
    if language is None:
        if row is not None:
            session.delete(row)
    elif row is None:
        session.add(ReviewerLanguage(reviewer_id=reviewer.id, language=language))
    else:
        row.language = language
    return reviewer.id
