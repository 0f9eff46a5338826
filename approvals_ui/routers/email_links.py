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

from fastapi import APIRouter, Form, Path, Request, status
from fastapi.responses import Response

from approvals_ui.deps import CurrentReviewer, EngineDep
from approvals_ui.remote_decisions import decide_away
from approvals_ui.templating import render
from signoff.service.email_links import EmailLinkRefused, read_email_link, spend_email_link
from workflows.actions import Verdict
from workflows.reject_reasons import LABELS

router = APIRouter(prefix="/decide", tags=["email links"])
CodePath = Annotated[str, Path(max_length=128)]
STATUS_OF = {
    "unknown": status.HTTP_404_NOT_FOUND,
    "other_reviewer": status.HTTP_403_FORBIDDEN,
    "used": status.HTTP_410_GONE,
    "expired": status.HTTP_410_GONE,
}
NEEDS_WHY = "To reject, choose why and write your reason: the agent is told both."


def _page(
    request: Request, reviewer: CurrentReviewer, context: dict[str, Any], code: int = 200
) -> Response:
    base = {"reviewer": reviewer, "refusal": None, "outcome": None, "grant": None}
    return render(request, "email_decision.html", {**base, **context}, code)


def _refused(request: Request, reviewer: CurrentReviewer, refused: EmailLinkRefused) -> Response:
    return _page(request, reviewer, {"refusal": str(refused)}, STATUS_OF[refused.reason])


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
    context = {"grant": grant, "code": code, "reject_categories": list(LABELS.items())}
    return _page(request, reviewer, context)


@router.post("/{code}")
async def decide(
    request: Request,
    code: CodePath,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    reason: Annotated[str, Form(max_length=2000)] = "",
    category: Annotated[str, Form(max_length=64)] = "",
) -> Response:
    now = datetime.now(UTC)
    try:
        grant = await asyncio.to_thread(read_email_link, engine, code, reviewer.id, now)
        verdict: Verdict = "approve" if grant.verdict == "approve" else "reject"
        if verdict == "reject" and not (reason.strip() and category):
            # Checked before the link is spent: a form left short keeps the link usable.
            context = {"grant": grant, "code": code, "reject_categories": list(LABELS.items())}
            context["refusal_inline"] = NEEDS_WHY
            return _page(request, reviewer, context, status.HTTP_400_BAD_REQUEST)
        grant = await asyncio.to_thread(spend_email_link, engine, code, reviewer.id, now)
    except EmailLinkRefused as refused:
        return _refused(request, reviewer, refused)
    outcome = await decide_away(
        request,
        engine,
        reviewer,
        grant.run_id,
        grant.action_hash,
        verdict,
        reason.strip() or "Approved from an e-mail link.",
        category if verdict == "reject" else None,
    )
    code_status = status.HTTP_200_OK if outcome.decided else status.HTTP_409_CONFLICT
    return _page(request, reviewer, {"grant": grant, "outcome": outcome}, code_status)
