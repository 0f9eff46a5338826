"""The signed session cookie: the server-side session's id, the CSRF token, a notice.

Design note. The cookie holds a small JSON document signed with itsdangerous (HMAC);
a cookie that fails the signature is an empty session. It is HttpOnly, SameSite=Lax,
and Secure whenever the request came over https. Who is signed in is not decided by
the cookie: it carries the id of a row in `ui_sessions` (activities/store/ui_sessions.py)
and the reviewer counts only while that row is open, unexpired and the reviewer active.
So sign-out, a password change and `signoff user disable` end a session at once, even
in a copy of the cookie saved before, and the lifetime is absolute.

The signing secret must be at least 32 bytes, and its file readable by its owner alone:
anyone who has it can forge the cookie (and its CSRF token). A weaker one is refused
when the app is made, so the server does not start.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from signoff.config.secret_files import WeakSecret
from signoff.config.secret_files import load_secret as load_secret_file
from signoff.config.settings import Settings

COOKIE_NAME = "signoff_session"
SECRET_FILE = "ui-secret"
SESSION_SCOPE_KEY = "signoff.session"
SESSION_ID_KEY = "sid"


# One rule for every secret in SIGNOFF_HOME (signoff/config/secret_files.py).
UnsafeSecret = WeakSecret


def load_secret(settings: Settings) -> str:
    """SIGNOFF_UI_SECRET, or a random secret kept in SIGNOFF_HOME (created on first use).

    Raises UnsafeSecret for a secret under 32 bytes or a file others can read."""
    return load_secret_file(settings.ui_secret, settings.home / SECRET_FILE, "SIGNOFF_UI_SECRET")


def session_of(request: Request) -> dict[str, Any]:
    session: dict[str, Any] = request.scope[SESSION_SCOPE_KEY]
    return session


def new_session() -> dict[str, Any]:
    return {"csrf": secrets.token_urlsafe(32)}


class SessionMiddleware:
    """Loads the session into the scope, and writes the cookie back when it changed."""

    def __init__(self, app: ASGIApp, secret: str, max_age_seconds: int) -> None:
        self.app = app
        self.serializer = URLSafeTimedSerializer(secret, salt="signoff-ui-session")
        self.max_age_seconds = max_age_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        loaded = self._load(request.cookies.get(COOKIE_NAME))
        session = loaded if loaded is not None else new_session()
        before = json.dumps(loaded, sort_keys=True) if loaded is not None else None
        scope[SESSION_SCOPE_KEY] = session
        secure = scope.get("scheme") == "https"

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                after = json.dumps(session, sort_keys=True)
                if after != before:
                    headers = list(message.get("headers", []))
                    headers.append((b"set-cookie", self._cookie(session, secure).encode()))
                    message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_cookie)

    def _load(self, cookie: str | None) -> dict[str, Any] | None:
        if not cookie:
            return None
        try:
            data = self.serializer.loads(cookie, max_age=self.max_age_seconds)
        except BadSignature:  # also an expired one (SignatureExpired is a BadSignature)
            return None
        return data if isinstance(data, dict) and isinstance(data.get("csrf"), str) else None

    def _cookie(self, session: dict[str, Any], secure: bool) -> str:
        value = self.serializer.dumps(session)
        parts = [
            f"{COOKIE_NAME}={value}",
            "Path=/",
            f"Max-Age={self.max_age_seconds}",
            "HttpOnly",
            "SameSite=Lax",
        ]
        if secure:
            parts.append("Secure")
        return "; ".join(parts)
