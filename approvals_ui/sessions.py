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
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from signoff.settings import Settings

COOKIE_NAME = "signoff_session"
SECRET_FILE = "ui-secret"
SESSION_SCOPE_KEY = "signoff.session"
SESSION_ID_KEY = "sid"
MIN_SECRET_BYTES = 32
GENERATE_HINT = "python3 -c 'import secrets; print(secrets.token_urlsafe(48))'"


class UnsafeSecret(ValueError):
    """The cookie-signing secret is too short or readable by others; the message says
    what to do."""


def load_secret(settings: Settings) -> str:
    """SIGNOFF_UI_SECRET, or a random secret kept in SIGNOFF_HOME (created on first use).

    Raises UnsafeSecret for a secret under 32 bytes or a file others can read."""
    if settings.ui_secret is not None:
        secret = settings.ui_secret.get_secret_value()
        if len(secret.encode()) < MIN_SECRET_BYTES:
            raise UnsafeSecret(
                f"SIGNOFF_UI_SECRET has {len(secret.encode())} bytes; it needs at least "
                f"{MIN_SECRET_BYTES}. Make one with `{GENERATE_HINT}`, or unset it to use "
                f"a generated {settings.home / SECRET_FILE}."
            )
        return secret
    path = settings.home / SECRET_FILE
    settings.home.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_secret_file(Path(path))
    with os.fdopen(descriptor, "w") as handle:
        secret = secrets.token_urlsafe(48)
        handle.write(secret)
    return secret


def _read_secret_file(path: Path) -> str:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise UnsafeSecret(
            f"{path} can be read or written by other users (mode {mode:o}). Run "
            f"`chmod 600 {path}`, and replace the secret if someone may have read it."
        )
    secret = path.read_text().strip()
    if len(secret.encode()) < MIN_SECRET_BYTES:
        raise UnsafeSecret(
            f"{path} holds {len(secret.encode())} bytes; it needs at least "
            f"{MIN_SECRET_BYTES}. Delete it to have a new one generated."
        )
    return secret


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
