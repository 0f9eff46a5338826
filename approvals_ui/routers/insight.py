"""The approval insight (`/insight`) and its CSV (`/insight.csv`): how the tenant's
requests went in a period, per tool and per reviewer, and what its shadow rules would
have done against what reviewers did.

For a team lead (`lead`) and an administrator of the tenant; 403 for anyone else. The
tenant is always the signed-in reviewer's: no parameter names one. Both read the store's
audit only (signoff/service/approval_insight.py), so they answer while Temporal is down.
"""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated

from babel.numbers import format_percent
from fastapi import APIRouter, Depends, HTTPException, Query, Request, status
from fastapi.responses import Response

from approvals_ui.babel_locale import locale_of
from approvals_ui.deps import CurrentReviewer, EngineDep
from approvals_ui.insight import (
    CSV_COLUMNS,
    InvalidPeriod,
    csv_rows,
    parse_period,
    period_query,
    seconds,
)
from approvals_ui.insight_charts import (
    MEDIAN_FILL,
    OUTCOMES,
    TAIL_FILL,
    outcome_segments,
    wait_bars,
)
from approvals_ui.routers.audit import safe_cell
from approvals_ui.templating import render, request_language, request_words
from approvals_ui.time_format import duration_text
from approvals_ui.words import N_
from signoff.service.approval_insight import InsightPeriod, insight_of, may_read_insight
from signoff.service.reviewer_access import SignedInReviewer

router = APIRouter(tags=["insight"])

PAGE = "/insight"
NOT_A_LEAD = N_(
    "The approval insight is for team leads and administrators of your tenant. Ask an "
    "administrator if you need it."
)
NOTHING = "—"


def lead_only(request: Request, reviewer: CurrentReviewer) -> SignedInReviewer:
    if not may_read_insight(reviewer):
        raise HTTPException(status.HTTP_403_FORBIDDEN, request_words(request).gettext(NOT_A_LEAD))
    return reviewer


Lead = Annotated[SignedInReviewer, Depends(lead_only)]


def period_of(
    request: Request,
    since: Annotated[str | None, Query(alias="from", max_length=32)] = None,
    until: Annotated[str | None, Query(alias="to", max_length=32)] = None,
) -> InsightPeriod:
    """Checked here, not by FastAPI: a person typed it, and reads the 400's words."""
    try:
        return parse_period(since, until, datetime.now(UTC).date())
    except InvalidPeriod as invalid:
        raise HTTPException(
            status.HTTP_400_BAD_REQUEST, request_words(request).gettext(str(invalid))
        ) from None


Period = Annotated[InsightPeriod, Depends(period_of)]


@router.get(PAGE)
async def insight_page(request: Request, lead: Lead, period: Period, engine: EngineDep) -> Response:
    insight = await asyncio.to_thread(insight_of, engine, lead.tenant_id, period)
    context = {
        "reviewer": lead,
        "period": period,
        "insight": insight,
        "csv_link": f"{PAGE}.csv?{period_query(period)}",
        "outcomes": OUTCOMES,
        "tool_bars": [(tally, outcome_segments(tally)) for tally in insight.tools],
        "reviewer_bars": [(tally, outcome_segments(tally)) for tally in insight.reviewers],
        "tool_waits": wait_bars(insight.tools),
        "reviewer_waits": wait_bars(insight.reviewers),
        "median_fill": MEDIAN_FILL,
        "tail_fill": TAIL_FILL,
        **_figure_words(request_language(request)),
    }
    return render(request, "insight.html", context)


def _figure_words(language: str) -> dict[str, Callable[..., str]]:
    """A wait (`12 min`) and a share (`4 %` in French) in the page's language; a figure
    with nothing to measure (no decision) is a dash."""

    def wait_text(milliseconds: int | None) -> str:
        shown = seconds(milliseconds)
        return NOTHING if shown is None else duration_text(shown, language)

    def share_text(share: float | None) -> str:
        return NOTHING if share is None else format_percent(share, locale=locale_of(language))

    return {"wait_text": wait_text, "share_text": share_text}


@router.get(PAGE + ".csv")
async def insight_csv(lead: Lead, period: Period, engine: EngineDep) -> Response:
    insight = await asyncio.to_thread(insight_of, engine, lead.tenant_id, period)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in csv_rows(insight):
        writer.writerow(safe_cell(value) for value in row)
    name = f"insight-{lead.tenant_id}-{period.since.isoformat()}-{period.until.isoformat()}.csv"
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )
