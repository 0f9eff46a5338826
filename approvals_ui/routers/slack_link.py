"""`/slack/link`: a signed-in reviewer links the Slack user who was given a code in Slack.

GET shows whose Slack account asks to act as the reviewer and changes nothing; the POST
(with the session's CSRF token) links it, once. Both need the reviewer's own session:
nobody links a Slack account to someone else (activities/store/slack_links.py).

GET names the Slack user as Slack does (users.info, when the tenant's Slack app has a
bot token), beside the member id; when Slack does not say, the page shows the id alone
and says so.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request, status
from fastapi.responses import Response

from approvals_ui.deps import CurrentReviewer, EngineDep, SettingsDep
from approvals_ui.templating import render, request_language, request_words
from approvals_ui.words import shown
from signoff.service.slack_accounts import (
    LinkCodeOfOtherTenant,
    LinkCodeRefused,
    SlackUser,
    links_of,
    read_link_code,
    redeem_link_code,
    slack_user_name,
    unlink,
)

router = APIRouter(prefix="/slack", tags=["slack"])
CodeText = Annotated[str, Query(max_length=128)]


async def _page(
    request: Request,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    extra: dict[str, Any],
    status_code: int = status.HTTP_200_OK,
) -> Response:
    links = await asyncio.to_thread(links_of, engine, reviewer.id)
    context = {
        "reviewer": reviewer,
        "links": links,
        "user": None,
        "linked": None,
        "slack_name": None,
        **extra,
    }
    refusal = context.get("refusal")
    if isinstance(
        refusal, str
    ):  # the store's words, in the page's language if the catalog has them
        words, language = request_words(request), request_language(request)
        context["refusal"], context["refusal_language"] = shown(refusal, words, language)
    return render(request, "slack_link.html", context, status_code)


@router.get("/link")
async def link_page(
    request: Request,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    settings: SettingsDep,
    code: CodeText = "",
) -> Response:
    if not code:
        return await _page(request, reviewer, engine, {})
    now = datetime.now(UTC)
    try:
        user: SlackUser = await asyncio.to_thread(
            read_link_code, engine, code, reviewer.tenant_id, now
        )
    except LinkCodeOfOtherTenant as refused:
        return await _page(request, reviewer, engine, {"refusal": str(refused)}, 403)
    except LinkCodeRefused as refused:
        return await _page(request, reviewer, engine, {"refusal": str(refused)}, 410)
    name = await slack_user_name(settings, user)
    return await _page(request, reviewer, engine, {"user": user, "code": code, "slack_name": name})


@router.post("/link")
async def link(
    request: Request,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    code: Annotated[str, Form(max_length=128)],
) -> Response:
    now = datetime.now(UTC)
    try:
        linked = await asyncio.to_thread(redeem_link_code, engine, code, reviewer.id, now)
    except LinkCodeRefused as refused:
        return await _page(request, reviewer, engine, {"refusal": str(refused)}, 409)
    return await _page(request, reviewer, engine, {"linked": linked})


@router.post("/unlink")
async def unlink_all(request: Request, reviewer: CurrentReviewer, engine: EngineDep) -> Response:
    now = datetime.now(UTC)
    await asyncio.to_thread(unlink, engine, reviewer.tenant_id, reviewer.id, now)
    return await _page(request, reviewer, engine, {})
