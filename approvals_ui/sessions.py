"""The signed session cookie: who is signed in, the CSRF token, a one-time notice.

Design note. The cookie holds a small JSON document signed with itsdangerous (HMAC,
with a timestamp checked against `SIGNOFF_UI_SESSION_HOURS`); nothing secret is in
it, and a cookie that fails the signature is an empty session. It is HttpOnly,
SameSite=Lax, and Secure whenever the request came over https. The session also keeps a
fingerprint of the reviewer's password hash: changing the password ends every session.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from pathlib import Path
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from signoff.config.settings import Settings

COOKIE_NAME = "signoff_session"
SECRET_FILE = "ui-secret"
SESSION_SCOPE_KEY = "signoff.session"


def load_secret(settings: Settings) -> str:
    """SIGNOFF_UI_SECRET, or a random secret kept in SIGNOFF_HOME (created on first use)."""
    if settings.ui_secret is not None:
        return settings.ui_secret.get_secret_value()
    path = settings.home / SECRET_FILE
    settings.home.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return Path(path).read_text().strip()
    with os.fdopen(descriptor, "w") as handle:
        secret = secrets.token_urlsafe(48)
        handle.write(secret)
    return secret


def password_fingerprint(password_hash: str | None) -> str:
    return hashlib.sha256((password_hash or "").encode()).hexdigest()[:16]


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
