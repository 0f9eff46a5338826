"""`/decide/{code}`: the one-tap decision link of an e-mail.

GET shows what the link would decide and decides nothing (mail scanners and link
previews open links); the POST from that page, with the session's CSRF token, decides
through the same steps as the decision page (remote_decisions.py). Both need the
reviewer the link was sent to, signed in. A link is spent by its POST before the
decision is sent: a used, expired, unknown or someone else's link says which.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, status
from fastapi.responses import Response

from approvals_ui.decision_fields import CategoryForm, ReasonForm
from approvals_ui.decision_words import REJECT_LABELS, translated
from approvals_ui.deps import CurrentReviewer, EngineDep
from approvals_ui.link_words import NEEDS_WHY, decision_told, email_refusal
from approvals_ui.remote_decisions import decide_away
from approvals_ui.templating import render, request_language, request_words
from signoff.service.email_links import EmailLinkRefused, read_email_link, spend_email_link
from workflows.actions import Verdict

router = APIRouter(prefix="/decide", tags=["email links"])
CodePath = Annotated[str, Path(max_length=128)]
STATUS_OF = {
    "unknown": status.HTTP_404_NOT_FOUND,
    "other_reviewer": status.HTTP_403_FORBIDDEN,
    "used": status.HTTP_410_GONE,
    "expired": status.HTTP_410_GONE,
}


def _page(
    request: Request, reviewer: CurrentReviewer, context: dict[str, Any], code: int = 200
) -> Response:
    base = {
        "reviewer": reviewer,
        "refusal": None,
        "outcome": None,
        "grant": None,
        "reject_categories": list(translated(REJECT_LABELS, request_words(request)).items()),
    }
    return render(request, "email_decision.html", {**base, **context}, code)


def _refused(request: Request, reviewer: CurrentReviewer, refused: EmailLinkRefused) -> Response:
    refusal = email_refusal(refused.reason, str(refused), request_words(request))
    context = {"refusal": refusal, "refusal_language": request_language(request)}
    return _page(request, reviewer, context, STATUS_OF[refused.reason])


@router.get("/{code}")
async def confirm_page(
    request: Request, code: CodePath, reviewer: CurrentReviewer, engine: EngineDep
) -> Response:
    try:
        grant = await asyncio.to_thread(
            read_email_link, engine, code, reviewer.id, datetime.now(UTC)
        )
    except EmailLinkRefused as refused:
        return _refused(request, reviewer, refused)
    return _page(request, reviewer, {"grant": grant, "code": code})


@router.post("/{code}")
async def decide(
    request: Request,
    code: CodePath,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    reason: ReasonForm = "",
    category: CategoryForm = "",
) -> Response:
    now = datetime.now(UTC)
    try:
        grant = await asyncio.to_thread(read_email_link, engine, code, reviewer.id, now)
        verdict: Verdict = "approve" if grant.verdict == "approve" else "reject"
        if verdict == "reject" and not (reason.strip() and category):
            # Checked before the link is spent: a form left short keeps the link usable.
            needs_why = request_words(request).gettext(NEEDS_WHY)
            context = {"grant": grant, "code": code, "refusal_inline": needs_why}
            return _page(request, reviewer, context, status.HTTP_400_BAD_REQUEST)
        grant = await asyncio.to_thread(spend_email_link, engine, code, reviewer.id, now)
    except EmailLinkRefused as refused:
        return _refused(request, reviewer, refused)
    outcome = await decide_away(
        request,
        reviewer,
        grant.run_id,
        grant.action_hash,
        verdict,
        reason.strip() or "Approved from an e-mail link.",
        category if verdict == "reject" else None,
    )
    code_status = status.HTTP_200_OK if outcome.decided else status.HTTP_409_CONFLICT
    told, told_language = decision_told(
        outcome.status, outcome.told(), request_words(request), request_language(request)
    )
    context = {
        "grant": grant,
        "outcome": outcome,
        "outcome_text": told,
        "outcome_language": told_language,
    }
    return _page(request, reviewer, context, code_status)
