"""A run's timeline: turns, tool calls, pending actions, decisions, outcome, tokens."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from fastapi.responses import Response

from approvals_ui.deps import CurrentReviewer, EngineDep, TemporalDep
from approvals_ui.lookups import run_context, run_for_reviewer
from approvals_ui.run_summary import summarize
from approvals_ui.templating import render, request_language, request_words

router = APIRouter(prefix="/runs", tags=["runs"])


@router.get("/{run_id}")
async def timeline(
    request: Request,
    run_id: str,
    reviewer: CurrentReviewer,
    client: TemporalDep,
    engine: EngineDep,
) -> Response:
    state = await run_for_reviewer(client, run_id, reviewer)
    context = await run_context(engine, state)
    summary = summarize(
        state,
        context.ticket_text,
        context.customer_name,
        datetime.now(UTC),
        request_words(request),
        request_language(request),
    )
    return render(
        request,
        "run.html",
        {"reviewer": reviewer, "run": context, "state": state, "summary": summary},
    )
