"""The audit page and its CSV export: the tenant's decisions, filtered the same way.

Both read the store's audit table (`approvals_ui/audit.py`), so they answer while
Temporal is down. The page is keyset-paged: `before` is the cursor a "next" link carries.

The CSV is opened in spreadsheets, which run a cell starting with `=`, `+`, `-` or `@`
as a formula: a reviewer's reason (or anything else we print) could then be code.
Such cells get a leading `'`, OWASP's advice, and the csv module does the quoting.
The last four columns are the hash chain's (seq, prev_hash, row_hash, and hashed_fields,
the exact text the hash covers): none can start with a formula character, so they are
exactly the store's, and an export can be checked away from the database (docs/
operating/audit.md).
"""

from __future__ import annotations

import csv
import io
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request, status
from fastapi.responses import Response

from approvals_ui.audit import (
    VERDICTS,
    AuditFilter,
    InvalidFilter,
    parse_cursor,
    parse_filter,
    read_all,
    read_page,
)
from approvals_ui.deps import CurrentReviewer, EngineDep
from approvals_ui.templating import render

router = APIRouter(tags=["audit"])
PAGE_SIZE = 50
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_COLUMNS = (
    "time_utc", "verdict", "reviewer", "run_id", "action_hash",
    "order", "amount", "currency", "reason", "refund_id", "ticket",
    "seq", "prev_hash", "row_hash", "hashed_fields",
)  # fmt: skip
FilterText = Annotated[str | None, Query(max_length=200)]


def filter_of(
    reviewer: FilterText = None,
    verdict: FilterText = None,
    since: Annotated[str | None, Query(alias="from", max_length=200)] = None,
    until: Annotated[str | None, Query(alias="to", max_length=200)] = None,
) -> AuditFilter:
    """Validated here, not by FastAPI: a person typed these, and reads the 400's words."""
    try:
        return parse_filter(reviewer, verdict, since, until)
    except InvalidFilter as invalid:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, str(invalid)) from None


FilterDep = Annotated[AuditFilter, Depends(filter_of)]


def cursor_of(
    before: Annotated[
        str | None,
        Query(max_length=20, description="The cursor of a `next` link: events below it."),
    ] = None,
) -> int | None:
    try:
        return parse_cursor(before)
    except InvalidFilter as invalid:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, str(invalid)) from None


CursorDep = Annotated[int | None, Depends(cursor_of)]


@router.get("/audit")
async def audit(
    request: Request,
    reviewer: CurrentReviewer,
    chosen: FilterDep,
    before: CursorDep,
    engine: EngineDep,
) -> Response:
    page = await read_page(engine, reviewer.tenant_id, chosen, before, PAGE_SIZE)
    return render(
        request,
        "audit.html",
        {
            "reviewer": reviewer,
            "filter": chosen,
            "verdicts": VERDICTS,
            "rows": page.rows,
            "total": page.total,
            "first_page": before is None,
            "next_before": page.next_before,
        },
    )


@router.get("/audit.csv")
async def audit_csv(reviewer: CurrentReviewer, chosen: FilterDep, engine: EngineDep) -> Response:
    log = await read_all(engine, reviewer.tenant_id, chosen)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in log.rows:
        writer.writerow(
            safe_cell(value)
            for value in (
                row.decided_at.isoformat(),
                row.kind,
                row.reviewer_id or "",
                row.run_id,
                row.action_hash,
                row.order_id or "",
                "" if row.amount is None else str(row.amount),
                row.currency or "",
                row.reason,
                row.refund_id or "",
                row.ticket_id,
                str(row.seq),
                row.prev_hash,
                row.row_hash,
                row.hashed_fields,
            )
        )
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="audit-{reviewer.tenant_id}.csv"'},
    )


def safe_cell(value: str) -> str:
    return "'" + value if value.startswith(FORMULA_STARTS) else value
