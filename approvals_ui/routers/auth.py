"""Sign-in and sign-out. Passwords are checked against the store's argon2 hashes.

In proxy mode there is no password sign-in: the auth proxy in front signs people in,
and these pages only say so.
"""

from __future__ import annotations

import asyncio
import math
from typing import Annotated

from fastapi import APIRouter, Form, Request, status
from fastapi.responses import RedirectResponse, Response

from activities.store import get_reviewer, verify_password
from approvals_ui.deps import EngineDep, MaybeReviewer
from approvals_ui.errors import PROXY_SIGN_IN, error_page, proxy_mode
from approvals_ui.security import SignInRateLimiter
from approvals_ui.sessions import new_session, password_fingerprint, session_of
from approvals_ui.templating import render

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


@router.post("/signin")
async def signin(
    request: Request,
    engine: EngineDep,
    username: Annotated[str, Form(max_length=MAX_NAME_CHARS)],
    password: Annotated[str, Form(max_length=1024)],
    next: Annotated[str, Form()] = HOME,
) -> Response:
    if proxy_mode(request):
        return error_page(
            request,
            status.HTTP_403_FORBIDDEN,
            "Password sign-in is off: this server takes the reviewer from its auth proxy.",
        )
    limiter: SignInRateLimiter = request.app.state.signin_limiter
    username = username.strip()
    client_ip = request.client.host if request.client else "unknown"
    keys = (f"user:{username.lower()}", f"ip:{client_ip}")
    wait = limiter.retry_after(*keys)
    if wait > 0:
        minutes = max(1, math.ceil(wait / 60))
        return render(
            request,
            "signin.html",
            {
                "next": safe_next(next),
                "username": username,
                "error": f"Too many sign-in attempts. Try again in {minutes} minute(s).",
            },
            status.HTTP_429_TOO_MANY_REQUESTS,
        )
    reviewer = await asyncio.to_thread(get_reviewer, engine, username)
    stored_hash = reviewer.password_hash if reviewer is not None else None
    # argon2 is slow on purpose: off the event loop.
    if not await asyncio.to_thread(verify_password, password, stored_hash) or reviewer is None:
        limiter.failed(*keys)
        return render(
            request,
            "signin.html",
            {
                "next": safe_next(next),
                "username": username,
                "error": "Wrong name or password.",
            },
            status.HTTP_401_UNAUTHORIZED,
        )
    limiter.succeeded(keys[0])
    session = session_of(request)
    session.clear()
    # A new CSRF token at sign-in: nothing from before the sign-in carries over.
    session.update(new_session())
    session.update(reviewer=reviewer.id, pw=password_fingerprint(reviewer.password_hash))
    return RedirectResponse(safe_next(next), status.HTTP_303_SEE_OTHER)


@router.post("/signout")
def signout(request: Request) -> RedirectResponse:
    session = session_of(request)
    session.clear()
    session.update(new_session())
    session["notice"] = "You are signed out."
    return RedirectResponse("/signin", status.HTTP_303_SEE_OTHER)
