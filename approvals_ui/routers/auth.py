"""Sign-in and sign-out. Passwords are checked against the store's argon2 hashes.

A sign-in opens a server-side session (activities/store/ui_sessions.py) whose id the
cookie carries; sign-out closes it, so a copy of the cookie stops working too. Failed
sign-ins are limited per (name, address) and per address (signin_limiter.py).

In proxy mode there is no password sign-in: the auth proxy in front signs people in,
and these pages only say so.
"""

from __future__ import annotations

import asyncio
import math
from datetime import timedelta
from typing import Annotated

from babel.units import format_unit
from fastapi import APIRouter, Form, Request, status
from fastapi.responses import RedirectResponse, Response

from approvals_ui.babel_locale import locale_of
from approvals_ui.deps import EngineDep, MaybeReviewer, SettingsDep
from approvals_ui.errors import PROXY_SIGN_IN, error_page, proxy_mode
from approvals_ui.sessions import SESSION_ID_KEY, new_session, session_of
from approvals_ui.signin_limiter import SignInRateLimiter
from approvals_ui.templating import render, request_language, request_words
from approvals_ui.words import N_
from signoff.service.accounts import (
    end_session,
    reviewer_name_key,
)
from signoff.service.metrics import signin_failed
from signoff.service.reviewer_access import open_session
from signoff.service.store import Store

PASSWORD_SIGN_IN_OFF = N_(
    "Password sign-in is off: this server takes the reviewer from its auth proxy."
)
TOO_MANY = N_("Too many sign-in attempts. Try again in %(wait)s.")
WRONG_PASSWORD = N_("Wrong name or password.")
DISABLED = N_("This reviewer account is disabled. Ask an administrator.")
CHANGED = N_("Your account changed just now. Sign in again.")

router = APIRouter(tags=["sign-in"])
HOME = "/approvals"
MAX_NAME_CHARS = 128


def safe_next(target: str | None) -> str:
    """Only a path on this site: never an absolute URL (an open redirect)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return HOME
    return target


@router.get("/", include_in_schema=False)
def home() -> RedirectResponse:
    return RedirectResponse(HOME, status.HTTP_303_SEE_OTHER)


@router.get("/signin")
def signin_page(request: Request, reviewer: MaybeReviewer, next: str | None = None) -> Response:
    if reviewer is not None:
        return RedirectResponse(safe_next(next), status.HTTP_303_SEE_OTHER)
    if proxy_mode(request):
        return error_page(request, status.HTTP_401_UNAUTHORIZED, PROXY_SIGN_IN)
    return render(request, "signin.html", {"next": safe_next(next), "username": ""})


def _wait_words(seconds: float, language: str) -> str:
    """`12 seconds`, `2 minutes`: rounded up, in the page's language (Babel)."""
    if seconds < 60:
        return format_unit(
            max(1, math.ceil(seconds)), "duration-second", locale=locale_of(language)
        )
    return format_unit(math.ceil(seconds / 60), "duration-minute", locale=locale_of(language))


@router.post("/signin")
async def signin(
    request: Request,
    engine: EngineDep,
    settings: SettingsDep,
    username: Annotated[str, Form(max_length=MAX_NAME_CHARS)],
    password: Annotated[str, Form(max_length=1024)],
    next: Annotated[str, Form()] = HOME,
) -> Response:
    if proxy_mode(request):
        return error_page(request, status.HTTP_403_FORBIDDEN, PASSWORD_SIGN_IN_OFF)
    limiter: SignInRateLimiter = request.app.state.signin_limiter
    username = username.strip()
    name_key = reviewer_name_key(username)
    # Behind a reverse proxy this is the client's address only if uvicorn trusts that
    # proxy's X-Forwarded-For (`--forwarded-allow-ips`); see docs/ui/security.md.
    address = request.client.host if request.client else "unknown"

    words = request_words(request)

    def refused(error: str, status_code: int) -> Response:
        context = {"next": safe_next(next), "username": username, "error": words.gettext(error)}
        return render(request, "signin.html", context, status_code)

    wait = limiter.begin(name_key, address)  # counted now, before the slow hash
    if wait > 0:
        signin_failed("rate_limited")
        return refused(
            words.gettext(TOO_MANY) % {"wait": _wait_words(wait, request_language(request))},
            status.HTTP_429_TOO_MANY_REQUESTS,
        )
    # argon2 is slow and memory-hard on purpose: off the event loop, a few at a time.
    checks = request.app.state.password_checks
    account = await asyncio.to_thread(checks.holder, engine, username, password)
    if account is None:  # already counted by begin
        signin_failed("wrong_credentials")
        return refused(WRONG_PASSWORD, status.HTTP_401_UNAUTHORIZED)
    if not account.active:
        # Said only after the right password: a guesser learns nothing from it.
        signin_failed("disabled")
        return refused(DISABLED, status.HTTP_403_FORBIDDEN)
    limiter.succeeded(name_key, address)
    lifetime = timedelta(hours=settings.ui_session_hours)
    session_id = await asyncio.to_thread(open_session, engine, account, lifetime)
    if session_id is None:  # disabled or given a new password during this sign-in
        return refused(CHANGED, status.HTTP_409_CONFLICT)
    session = session_of(request)
    await _end_server_session(engine, session.get(SESSION_ID_KEY))
    session.clear()
    # A new CSRF token at sign-in: nothing from before the sign-in carries over.
    session.update(new_session())
    session[SESSION_ID_KEY] = session_id
    return RedirectResponse(safe_next(next), status.HTTP_303_SEE_OTHER)


@router.post("/signout")
async def signout(request: Request, engine: EngineDep) -> RedirectResponse:
    session = session_of(request)
    await _end_server_session(engine, session.get(SESSION_ID_KEY))
    session.clear()
    session.update(new_session())
    session["notice"] = request_words(request).gettext(N_("You are signed out."))
    return RedirectResponse("/signin", status.HTTP_303_SEE_OTHER)


async def _end_server_session(engine: Store, session_id: object) -> None:
    if isinstance(session_id, str):
        await asyncio.to_thread(end_session, engine, session_id)
