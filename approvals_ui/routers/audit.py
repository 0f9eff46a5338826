"""The audit page and its CSV export: the tenant's decisions, filtered the same way.

The CSV is opened in spreadsheets, which run a cell starting with `=`, `+`, `-` or `@`
as a formula: a reviewer's reason (or anything else we print) could then be code.
Such cells get a leading `'`, OWASP's advice, and the csv module does the quoting.
"""

from __future__ import annotations

import csv
import io
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request, status
from fastapi.responses import Response
from temporalio.service import RPCError

from approvals_ui.audit import (
    VERDICTS,
    AuditFilter,
    AuditLog,
    InvalidFilter,
    audit_log,
    parse_filter,
)
from approvals_ui.deps import CurrentReviewer, EngineDep, TemporalDep
from approvals_ui.templating import render

router = APIRouter(tags=["audit"])
PAGE_SIZE = 50
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_COLUMNS = (
    "time_utc", "verdict", "reviewer", "run_id", "action_hash",
    "order", "amount", "currency", "reason",
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


def page_number(text: Annotated[str | None, Query(alias="page", max_length=20)] = None) -> int:
    if not text:
        return 1
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, "The page must be a number from 1.")
    return int(text)


PageDep = Annotated[int, Depends(page_number)]


async def _log(client: TemporalDep, engine: EngineDep, tenant_id: str) -> AuditLog:
    try:
        return await audit_log(client, engine, tenant_id)
    except RPCError:
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE, "Temporal did not answer. Try again shortly."
        ) from None


@router.get("/audit")
async def audit(
    request: Request,
    reviewer: CurrentReviewer,
    chosen: FilterDep,  # before Temporal: a bad filter is a 400 even when Temporal is down
    number: PageDep,
    client: TemporalDep,
    engine: EngineDep,
) -> Response:
    log = await _log(client, engine, reviewer.tenant_id)
    rows = [row for row in log.rows if chosen.matches(row)]
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    number = min(number, pages)
    return render(
        request,
        "audit.html",
        {
            "reviewer": reviewer,
            "filter": chosen,
            "verdicts": VERDICTS,
            "rows": rows[(number - 1) * PAGE_SIZE : number * PAGE_SIZE],
            "total": len(rows),
            "page": number,
            "pages": pages,
            "log": log,
        },
    )


@router.get("/audit.csv")
async def audit_csv(
    reviewer: CurrentReviewer,
    chosen: FilterDep,  # before Temporal: a bad filter is a 400 even when Temporal is down
    client: TemporalDep,
    engine: EngineDep,
) -> Response:
    log = await _log(client, engine, reviewer.tenant_id)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in log.rows:
        if chosen.matches(row):
            writer.writerow(
                safe_cell(value)
                for value in (
                    row.at.isoformat(),
                    row.kind,
                    row.reviewer_id or "",
                    row.run_id,
                    row.action_hash,
                    row.order_id or "",
                    "" if row.amount is None else str(row.amount),
                    row.currency or "",
                    row.reason,
                )
            )
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="audit-{reviewer.tenant_id}.csv"'},
    )


def safe_cell(value: str) -> str:
    return "'" + value if value.startswith(FORMULA_STARTS) else value
