"""The tenant's audit: every decision event (approved, first approval of two, rejected,
expired, voided, denied, cancelled, refused, executed), with who, when, why, and the
amount and order.

Design note. The source is the store's append-only `decisions` table, not Temporal:
the events outlive the namespace's retention and a replaced Temporal server, and the
whole log is listed, paged by a keyset cursor (`before`, a chain sequence number)
with the true total. Runs decided before the table existed are not in it: their
trail is still in their run memo and history while Temporal keeps them.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlencode

from approvals_ui.words import N_
from signoff.service.audit import AUDIT_KINDS, AuditPage, AuditQuery, audit_page, audit_rows
from signoff.service.store import Store
from workflows.contract_base import IDENTIFIER_PATTERN

VERDICTS: tuple[str, ...] = AUDIT_KINDS
# The CSV reads the whole filtered log in batches of this many rows.
CSV_BATCH_ROWS = 500


class InvalidFilter(ValueError):
    """A filter a person typed that we cannot use; the message says what to type. A
    message without values is marked for the catalog (`N_`): the error page shows it in
    the page's language, the API in English."""


@dataclass(frozen=True)
class AuditFilter:
    reviewer: str | None = None
    verdict: str | None = None
    since: date | None = None
    until: date | None = None

    def for_tenant(self, tenant_id: str) -> AuditQuery:
        return AuditQuery(tenant_id, self.reviewer, self.verdict, self.since, self.until)

    def query(self, **extra: object) -> str:
        """The filter as a query string, for page links and the CSV link."""
        params = {
            "reviewer": self.reviewer,
            "verdict": self.verdict,
            "from": self.since.isoformat() if self.since else None,
            "to": self.until.isoformat() if self.until else None,
            **extra,
        }
        return urlencode({key: value for key, value in params.items() if value})


def parse_filter(
    reviewer: str | None, verdict: str | None, since: str | None, until: str | None
) -> AuditFilter:
    """Empty fields mean "any": a GET form submits every field, filled or not."""
    reviewer = (reviewer or "").strip() or None
    verdict = (verdict or "").strip() or None
    if reviewer is not None and not re.match(IDENTIFIER_PATTERN, reviewer):
        raise InvalidFilter(N_("The reviewer filter is not a reviewer name."))
    if verdict is not None and verdict not in VERDICTS:
        raise InvalidFilter(f"The verdict filter must be one of: {', '.join(VERDICTS)}.")
    start, end = _date("from", since), _date("to", until)
    if start and end and start > end:
        raise InvalidFilter(N_("The 'from' date is after the 'to' date."))
    return AuditFilter(reviewer, verdict, start, end)


def _date(name: str, text: str | None) -> date | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InvalidFilter(f"The '{name}' date must look like 2026-01-31.") from None


def parse_cursor(text: str | None) -> int | None:
    """The `before` cursor of a page link: a positive whole number, or absent."""
    text = (text or "").strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise InvalidFilter(
            N_("The 'before' cursor must be a whole number from 1; follow a page link.")
        )
    return int(text)


async def read_page(
    engine: Store, tenant_id: str, chosen: AuditFilter, before: int | None, limit: int
) -> AuditPage:
    """One page of the tenant's audit, newest first, with the filtered total."""
    query = chosen.for_tenant(tenant_id)
    return await asyncio.to_thread(audit_page, engine, query, before=before, limit=limit)


async def read_all(engine: Store, tenant_id: str, chosen: AuditFilter) -> AuditPage:
    """Every matching event, newest first (for the CSV)."""
    query = chosen.for_tenant(tenant_id)
    rows = await asyncio.to_thread(audit_rows, engine, query, batch=CSV_BATCH_ROWS)
    return AuditPage(tuple(rows), len(rows), None)
