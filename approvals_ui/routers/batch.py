"""Deciding several requests at once from the inbox: its live summary, the page that shows
the selection before the decision, and the page of outcomes, one line per request.

The selection travels as `selected` fields, each `run id/action hash` as the inbox showed
it: the store's read model of the reviewer's tenant says what they add up to, and each
decision goes to its own run (approvals_ui/batch.py). Included before the one-request
router: `/approvals/batch/decision` would otherwise read as the decision of a run
named "batch".
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Form, Query, Request, status
from fastapi.responses import Response

from approvals_ui.batch import decide_batch
from approvals_ui.decision_fields import CategoryForm, ReasonForm, VerdictForm
from approvals_ui.decision_words import REJECT_LABELS, translated
from approvals_ui.deps import CurrentReviewer, EngineDep
from approvals_ui.link_words import decision_told
from approvals_ui.templating import render, request_language, request_words
from signoff.config.settings import MAX_PAGE_SIZE
from signoff.service.batch_decisions import (
    MAX_BATCH,
    BatchKey,
    InvalidBatch,
    checked_choice,
    checked_keys,
    parse_key,
    summary_of,
)
from signoff.service.batch_selection import Selection, selection_of
from signoff.service.ticket_excerpts import ticket_words

router = APIRouter(prefix="/approvals/batch", tags=["approvals"])

KEY_CHARS = 200
# As many as a page of the inbox shows: beyond MAX_BATCH the summary says so in words.
SelectedQuery = Annotated[list[str] | None, Query(max_length=MAX_PAGE_SIZE)]
SelectedForm = Annotated[list[str] | None, Form()]


def _keys(selected: list[str] | None) -> list[BatchKey]:
    return checked_keys(parse_key(text[:KEY_CHARS]) for text in selected or [])


@router.get("/summary")
async def summary(
    request: Request, reviewer: CurrentReviewer, engine: EngineDep, selected: SelectedQuery = None
) -> Response:
    """The inbox's summary region, refreshed by htmx whenever a box is ticked."""
    problem, chosen = None, Selection(found=[], gone=[])
    if selected:
        try:
            chosen = await selection_of(engine, reviewer.tenant_id, _keys(selected))
        except InvalidBatch as invalid:
            problem = str(invalid)
    return render(
        request,
        "_batch_summary.html",
        {"summary": summary_of(item.action for item in chosen.found), "problem": problem},
    )


@router.post("")
async def review(
    request: Request, reviewer: CurrentReviewer, engine: EngineDep, selected: SelectedForm = None
) -> Response:
    """The selection, summed up, with one decision for all of it."""
    try:
        keys = _keys(selected)
    except InvalidBatch as invalid:
        return await _review(
            request, reviewer, engine, Selection([], []), str(invalid), status.HTTP_400_BAD_REQUEST
        )
    chosen = await selection_of(engine, reviewer.tenant_id, keys)
    return await _review(request, reviewer, engine, chosen)


async def _review(
    request: Request,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    chosen: Selection,
    problem: str | None = None,
    status_code: int = status.HTTP_200_OK,
) -> Response:
    needs_passkey = request.app.state.passkey_policy.needs_passkey
    # Each request's ticket (the customer's words and name), in one query: the selection
    # is the reviewer's tenant's alone, and so are the tickets read for it.
    words = await asyncio.to_thread(ticket_words, engine, chosen.found)
    return render(
        request,
        "batch_review.html",
        {
            "reviewer": reviewer,
            "items": chosen.found,
            "words": words,
            "gone": chosen.gone,
            "summary": summary_of(item.action for item in chosen.found),
            "needs_passkey": needs_passkey,
            "reject_categories": list(translated(REJECT_LABELS, request_words(request)).items()),
            "refusal": problem,
            "max_batch": MAX_BATCH,
        },
        status_code,
    )


@router.post("/decision")
async def decide(
    request: Request,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    verdict: VerdictForm,
    selected: SelectedForm = None,
    reason: ReasonForm = "",
    category: CategoryForm = "",
) -> Response:
    """One signed decision per selected request; the page lists each one's outcome."""
    try:
        keys = _keys(selected)
        # One form carries both buttons: a category chosen before Approve is no part of it.
        chosen_category = checked_choice(verdict, reason, category if verdict == "reject" else None)
    except InvalidBatch as invalid:
        chosen = Selection([], [])
        if selected:
            try:
                chosen = await selection_of(engine, reviewer.tenant_id, _keys(selected))
            except InvalidBatch:
                pass  # the selection itself is what is wrong: the page says so
        return await _review(
            request, reviewer, engine, chosen, str(invalid), status.HTTP_400_BAD_REQUEST
        )
    shown = await selection_of(engine, reviewer.tenant_id, keys)
    outcomes = await decide_batch(request, reviewer, keys, verdict, reason, chosen_category)
    titles = {(item.run_id, item.action.action_hash): item for item in shown.found}
    return render(
        request,
        "batch_results.html",
        {
            "reviewer": reviewer,
            "verdict": verdict,
            "rows": [
                (outcome, titles.get((outcome.run_id, outcome.action_hash))) for outcome in outcomes
            ],
            # What each decision did, in the page's language where the run's answer has
            # words in the catalog, and a refusal the run sent with its wording.
            "told": [
                decision_told(
                    outcome.status if outcome.succeeded else None,
                    outcome.wording or outcome.message,
                    request_words(request),
                    request_language(request),
                )
                for outcome in outcomes
            ],
            "succeeded": sum(1 for outcome in outcomes if outcome.succeeded),
        },
    )
