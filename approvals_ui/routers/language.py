"""The page where a reviewer chooses the language of the reviewer UI.

The choice is the signed-in reviewer's own, for themselves: the form names a language,
never a reviewer. "auto" clears it, and the browser's Accept-Language decides again.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request, status
from fastapi.responses import RedirectResponse, Response

from approvals_ui.deps import CurrentReviewer, EngineDep
from approvals_ui.locale_choice import page_language
from approvals_ui.sessions import session_of
from approvals_ui.templating import render
from approvals_ui.translations import translations
from approvals_ui.words import N_
from signoff.service.languages import (
    LANGUAGES,
    UnknownLanguage,
    choose_language,
    preferred_language,
    supported,
)

router = APIRouter(tags=["language"])

FOLLOW_BROWSER = "auto"
NOT_A_LANGUAGE = N_("Choose one of the languages listed, or to follow your browser's.")
CHOSEN = N_("The reviewer UI speaks %(language)s to you now.")
FOLLOWING = N_("The reviewer UI follows your browser's languages now.")


@router.get("/language")
async def language_page(request: Request, reviewer: CurrentReviewer, engine: EngineDep) -> Response:
    chosen = await asyncio.to_thread(preferred_language, engine, reviewer.id)
    context = {"reviewer": reviewer, "chosen": chosen or FOLLOW_BROWSER, "auto": FOLLOW_BROWSER}
    return render(request, "language.html", context)


@router.post("/language")
async def choose(
    request: Request,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    language: Annotated[str, Form(max_length=16)],
) -> Response:
    try:
        tag = None if language == FOLLOW_BROWSER else supported(language)
    except UnknownLanguage:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, NOT_A_LANGUAGE) from None
    await asyncio.to_thread(choose_language, engine, reviewer.id, tag)
    # The notice is read on the next page, in the language just chosen.
    if tag is None:
        words = translations(page_language(None, request.headers.get("accept-language")))
        session_of(request)["notice"] = words.gettext(FOLLOWING)
    else:
        words = translations(tag)
        session_of(request)["notice"] = words.gettext(CHOSEN) % {"language": LANGUAGES[tag]}
    return RedirectResponse("/language", status.HTTP_303_SEE_OTHER)
