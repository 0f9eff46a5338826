"""`GET /api/audit`: the tenant's audit as JSON, filtered and paged like the page.

It reads the store, never Temporal: it answers while Temporal is down, and it lists
decisions of runs Temporal no longer keeps. Pages follow the `next` path, a keyset
cursor, newest first; `total` counts every match.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from approvals_ui.api_models import ApiError, AuditEntry, AuditList
from approvals_ui.audit import read_page
from approvals_ui.deps import CurrentReviewer, EngineDep
from approvals_ui.routers.audit import CursorDep, FilterDep

API_PAGE_DEFAULT = 50
API_PAGE_MAX = 200
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ApiError} for code in (400, 401, 403, 422)
}
router = APIRouter(prefix="/api", tags=["api"], responses=ERRORS)


@router.get(
    "/audit",
    summary="The tenant's decision events, newest first, from the store's audit",
    description="Filters: `reviewer`, `verdict` (a kind), `from` and `to` (UTC days, "
    "included). 400 says which filter was not valid.",
)
async def audit(
    reviewer: CurrentReviewer,
    chosen: FilterDep,
    before: CursorDep,
    engine: EngineDep,
    limit: Annotated[int, Query(ge=1, le=API_PAGE_MAX)] = API_PAGE_DEFAULT,
) -> AuditList:
    page = await read_page(engine, reviewer.tenant_id, chosen, before, limit)
    next_path = (
        f"/api/audit?{chosen.query(before=page.next_before, limit=limit)}"
        if page.next_before is not None
        else None
    )
    return AuditList(
        total=page.total,
        items=[
            AuditEntry(
                id=row.id,
                seq=row.seq,
                kind=row.kind,
                decided_at=row.decided_at,
                recorded_at=row.recorded_at,
                reviewer_id=row.reviewer_id,
                run_id=row.run_id,
                ticket_id=row.ticket_id,
                action_hash=row.action_hash,
                reason=row.reason,
                order_id=row.order_id,
                amount=row.amount,
                currency=row.currency,
                refund_id=row.refund_id,
                prev_hash=row.prev_hash,
                row_hash=row.row_hash,
                hashed_fields=row.hashed_fields,
            )
            for row in page.rows
        ],
        next=next_path,
    )
