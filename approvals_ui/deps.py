"""Dependencies of the routes, as `Annotated` aliases: settings, store, Temporal, reviewer.

The signed-in reviewer is read from the store on every request, so a changed role or
tenant applies at once, a disabled reviewer is refused at once, and the decision a
route sends carries what the store says, never what a form says. Who the reviewer is
comes from one of:
- the session cookie, whose id must name an open server-side session (sessions.py);
- with `SIGNOFF_AUTH=proxy`, the header an auth proxy in front sets (the cookie's
  reviewer is then ignored, and the header is ignored in the default session mode);
- under `/api/` only, in either mode, `Authorization: Bearer <token>`, a reviewer's
  personal API token (`signoff user token`). When that header is sent it alone
  decides: a wrong, revoked or expired token is a 401 that says which, never a
  fall-back to the cookie;
- under `/api/` only, in session mode, `Authorization: Basic` with the reviewer's name
  and password: how `signoff approve --password-stdin` asks this server, the decision
  service, to decide. It counts against the sign-in rate limit like the sign-in page,
  and no answer ever asks a browser for it (no `WWW-Authenticate: Basic`), so no
  browser holds it to attach to another site's request.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import math
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status

from approvals_ui.password_checks import PasswordChecks
from approvals_ui.sessions import SESSION_ID_KEY, session_of
from approvals_ui.words import N_
from signoff.config.settings import Settings
from signoff.service.accounts import (
    reviewer_name_key,
)
from signoff.service.languages import preferred_language
from signoff.service.metrics import signin_failed
from signoff.service.payment_orders import PaymentConnectors, PaymentLinkRefused, connectors
from signoff.service.reviewer_access import (
    SignedInReviewer,
    named_account,
    session_holder,
    token_holder,
)
from signoff.service.run_control import Runs
from signoff.service.store import Store
from workflows.contract_base import IDENTIFIER_PATTERN

TemporalConnect = Callable[[Settings], Awaitable[Runs]]


class SignInRequired(Exception):
    """No valid session: HTML goes to the sign-in page, htmx and the API get 401."""


class UnknownProxyReviewer(Exception):
    """Proxy mode: the auth proxy named someone who is not a reviewer in the store."""


class DisabledReviewer(HTTPException):
    def __init__(self) -> None:
        super().__init__(
            status.HTTP_403_FORBIDDEN,
            "This reviewer account is disabled. Ask an administrator (`signoff user enable NAME`).",
        )


class InvalidApiToken(HTTPException):
    def __init__(self, why: str | None = None) -> None:
        super().__init__(
            status.HTTP_401_UNAUTHORIZED,
            why
            or "The API token is not valid: send `Authorization: Bearer <token>` with a "
            "token from `signoff user token NAME`.",
        )


class WrongPassword(HTTPException):
    def __init__(self, detail: str) -> None:
        super().__init__(status.HTTP_401_UNAUTHORIZED, detail)


# request.state.auth says how the reviewer was authenticated: the CSRF rule differs.
# A password in the Authorization header rides on no cookie either: the bearer's rule.
AUTH_BEARER = "bearer"
BEARER_SCHEME = "bearer"
BASIC_SCHEME = "basic"


class TemporalUnavailable(Exception):
    """Temporal cannot be reached; the page says so instead of failing."""


class TemporalProvider:
    """One client per app, connected on first use inside the server's event loop."""

    def __init__(self, settings: Settings, connect: TemporalConnect) -> None:
        self._settings = settings
        self._connect = connect
        self._runs: Runs | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> Runs:
        if self._runs is not None:
            return self._runs
        async with self._lock:
            if self._runs is None:
                try:
                    self._runs = await self._connect(self._settings)
                except Exception:  # connect raises plain RuntimeErrors on network failures
                    raise TemporalUnavailable() from None
            return self._runs


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_payments(request: Request) -> PaymentConnectors:
    """Each tenant's payments connector, built once per app: the reviewer reads a Stripe
    order's prior refunds from Stripe."""
    payments: PaymentConnectors | None = getattr(request.app.state, "payments", None)
    if payments is None:
        try:
            payments = connectors(get_settings(request))
        except PaymentLinkRefused:
            # An unreadable keys file: a Stripe order's page then says its refunds could
            # not be read (`prior_refunds`), instead of failing every page.
            payments = PaymentConnectors.ledger_only()
        request.app.state.payments = payments
    return payments


def get_engine(request: Request) -> Store:
    engine: Store = request.app.state.engine
    return engine


async def get_temporal(request: Request) -> Runs:
    provider: TemporalProvider = request.app.state.temporal
    return await provider.get()


def get_reviewer_or_none(request: Request) -> SignedInReviewer | None:
    """Sync on purpose: FastAPI runs it in a thread, off the event loop, like every read.
    For a page, it also reads the language the reviewer chose (templating.render)."""
    reviewer = _reviewer_or_none(request)
    if reviewer is not None and not request.url.path.startswith("/api/"):
        request.state.language_preference = preferred_language(get_engine(request), reviewer.id)
    return reviewer


def _reviewer_or_none(request: Request) -> SignedInReviewer | None:
    settings = get_settings(request)
    authorization = request.headers.get("authorization")
    if authorization is not None and request.url.path.startswith("/api/"):
        return _token_reviewer(request, authorization)
    if settings.auth == "proxy":
        return _proxy_reviewer(request, settings.auth_header)
    session = session_of(request)
    session_id = session.get(SESSION_ID_KEY)
    if not isinstance(session_id, str):
        return None
    reviewer = session_holder(get_engine(request), session_id)
    if reviewer is None:
        # Signed out elsewhere, expired, password changed, reviewer disabled or deleted.
        session.pop(SESSION_ID_KEY, None)
    return reviewer


def _token_reviewer(request: Request, authorization: str) -> SignedInReviewer:
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() == BASIC_SCHEME:
        return _password_reviewer(request, token.strip())
    if scheme.lower() != BEARER_SCHEME or not token.strip():
        signin_failed("bad_token")
        raise InvalidApiToken()
    proof = token_holder(get_engine(request), token.strip(), datetime.now(UTC))
    if proof.reviewer is None:
        signin_failed("bad_token")
        raise InvalidApiToken(proof.problem)
    request.state.auth = AUTH_BEARER
    return proof.reviewer


def _password_reviewer(request: Request, credentials: str) -> SignedInReviewer:
    """`Authorization: Basic`, checked as the sign-in page checks a password."""
    if get_settings(request).auth == "proxy":
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            "Password sign-in is off: this server takes the reviewer from its auth proxy. "
            "Use the reviewer's API token (`signoff user token`).",
        )
    try:
        name, colon, password = base64.b64decode(credentials, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        colon = ""
    if not colon or not name.strip():
        raise WrongPassword("Basic credentials must be base64 of NAME:PASSWORD.")
    name = name.strip()
    limiter = request.app.state.signin_limiter
    name_key = reviewer_name_key(name)
    address = request.client.host if request.client else "unknown"
    wait = limiter.begin(name_key, address)  # counted now, before the slow hash
    if wait > 0:
        signin_failed("rate_limited")
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            f"Too many sign-in attempts. Try again in {math.ceil(wait)} second(s).",
        )
    # Under the process's cap on password checks (this sync dependency runs in a thread).
    checks: PasswordChecks = request.app.state.password_checks
    account = checks.holder(get_engine(request), name, password)
    if account is None:  # already counted by begin
        signin_failed("wrong_credentials")
        raise WrongPassword(f"Wrong password for '{name}', or no such reviewer with a password.")
    if not account.active:
        signin_failed("disabled")
        raise DisabledReviewer()
    limiter.succeeded(name_key, address)
    request.state.auth = AUTH_BEARER
    return account.reviewer


def _proxy_reviewer(request: Request, header: str) -> SignedInReviewer | None:
    reviewer_id = request.headers.get(header, "").strip()
    if not reviewer_id:
        return None
    account = (
        named_account(get_engine(request), reviewer_id)
        if re.match(IDENTIFIER_PATTERN, reviewer_id)
        else None
    )
    if account is None:
        raise UnknownProxyReviewer()
    if not account.active:
        raise DisabledReviewer()
    return account.reviewer


def authenticated_by_bearer(request: Request) -> bool:
    return getattr(request.state, "auth", None) == AUTH_BEARER


def get_current_reviewer(
    reviewer: Annotated[SignedInReviewer | None, Depends(get_reviewer_or_none)],
) -> SignedInReviewer:
    if reviewer is None:
        raise SignInRequired()
    return reviewer


NO_SUCH_RUN = N_("There is no such run in your tenant.")


def not_found() -> HTTPException:
    # The same answer for "no such run" and "another tenant's run": ids reveal nothing.
    return HTTPException(status.HTTP_404_NOT_FOUND, NO_SUCH_RUN)


SettingsDep = Annotated[Settings, Depends(get_settings)]
EngineDep = Annotated[Store, Depends(get_engine)]
PaymentsDep = Annotated[PaymentConnectors, Depends(get_payments)]
TemporalDep = Annotated[Runs, Depends(get_temporal)]
MaybeReviewer = Annotated[SignedInReviewer | None, Depends(get_reviewer_or_none)]
CurrentReviewer = Annotated[SignedInReviewer, Depends(get_current_reviewer)]
