"""Dependencies of the routes, as `Annotated` aliases: settings, store, Temporal, reviewer.

The signed-in reviewer is read from the store on every request, so a changed role or
tenant applies at once, and the decision a route sends carries what the store says,
never what a form says. Who the reviewer is comes from the session cookie, or, with
`SIGNOFF_AUTH=proxy`, from the header an auth proxy in front sets (the cookie's
reviewer is then ignored, and the header is ignored in the default session mode).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from sqlalchemy import Engine
from temporalio.client import Client

from activities.store import Reviewer, get_reviewer
from approvals_ui.sessions import password_fingerprint, session_of
from signoff.config.settings import Settings
from workflows.actions import REFUND_APPROVER_ROLE
from workflows.contract_base import IDENTIFIER_PATTERN

TemporalConnect = Callable[[Settings], Awaitable[Client]]


@dataclass(frozen=True)
class SignedInReviewer:
    id: str
    tenant_id: str
    display_name: str
    roles: tuple[str, ...]

    @property
    def can_decide(self) -> bool:
        return REFUND_APPROVER_ROLE in self.roles


class SignInRequired(Exception):
    """No valid session: HTML goes to the sign-in page, htmx and the API get 401."""


class UnknownProxyReviewer(Exception):
    """Proxy mode: the auth proxy named someone who is not a reviewer in the store."""


class TemporalUnavailable(Exception):
    """Temporal cannot be reached; the page says so instead of failing."""


class TemporalProvider:
    """One client per app, connected on first use inside the server's event loop."""

    def __init__(self, settings: Settings, connect: TemporalConnect) -> None:
        self._settings = settings
        self._connect = connect
        self._client: Client | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> Client:
        if self._client is not None:
            return self._client
        async with self._lock:
            if self._client is None:
                try:
                    self._client = await self._connect(self._settings)
                except Exception:  # connect raises plain RuntimeErrors on network failures
                    raise TemporalUnavailable() from None
            return self._client


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


async def get_temporal(request: Request) -> Client:
    provider: TemporalProvider = request.app.state.temporal
    return await provider.get()


def get_reviewer_or_none(request: Request) -> SignedInReviewer | None:
    """Sync on purpose: FastAPI runs it in a thread, off the event loop, like every read."""
    settings = get_settings(request)
    if settings.auth == "proxy":
        return _proxy_reviewer(request, settings.auth_header)
    session = session_of(request)
    reviewer_id = session.get("reviewer")
    if not isinstance(reviewer_id, str):
        return None
    reviewer = get_reviewer(get_engine(request), reviewer_id)
    if reviewer is None or session.get("pw") != password_fingerprint(reviewer.password_hash):
        session.pop("reviewer", None)  # deleted, or the password changed since sign-in
        return None
    return _signed_in(reviewer)


def _proxy_reviewer(request: Request, header: str) -> SignedInReviewer | None:
    reviewer_id = request.headers.get(header, "").strip()
    if not reviewer_id:
        return None
    reviewer = (
        get_reviewer(get_engine(request), reviewer_id)
        if re.match(IDENTIFIER_PATTERN, reviewer_id)
        else None
    )
    if reviewer is None:
        raise UnknownProxyReviewer()
    return _signed_in(reviewer)


def _signed_in(reviewer: Reviewer) -> SignedInReviewer:
    return SignedInReviewer(
        id=reviewer.id,
        tenant_id=reviewer.tenant_id,
        display_name=reviewer.display_name,
        roles=tuple(reviewer.role_list),
    )


def get_current_reviewer(
    reviewer: Annotated[SignedInReviewer | None, Depends(get_reviewer_or_none)],
) -> SignedInReviewer:
    if reviewer is None:
        raise SignInRequired()
    return reviewer


def not_found() -> HTTPException:
    # The same answer for "no such run" and "another tenant's run": ids reveal nothing.
    return HTTPException(status.HTTP_404_NOT_FOUND, "There is no such run in your tenant.")


SettingsDep = Annotated[Settings, Depends(get_settings)]
EngineDep = Annotated[Engine, Depends(get_engine)]
TemporalDep = Annotated[Client, Depends(get_temporal)]
MaybeReviewer = Annotated[SignedInReviewer | None, Depends(get_reviewer_or_none)]
CurrentReviewer = Annotated[SignedInReviewer, Depends(get_current_reviewer)]
