"""Security headers and the CSRF check (the sign-in rate limit is in signin_limiter.py).

CSRF: every state-changing request carries the session's token, in the form field
`csrf_token` or the `X-CSRF-Token` header, and, when the browser sends an Origin, that
origin is this site. The session cookie is SameSite=Lax as well: two fences.

The JSON API takes no forms: its POSTs must be `application/json`, which no page of
another site can send without a CORS preflight (this app answers none), and, when the
session cookie authenticates them, carry the session's token in `X-CSRF-Token`. In
proxy mode the identity comes from the proxy's header, and the JSON content type and
the Origin check are the fence. A request authenticated by `Authorization: Bearer`
needs no CSRF token: CSRF rides on credentials a browser attaches by itself (cookies),
and no browser ever attaches an Authorization header to a request another site makes.
"""

from __future__ import annotations

import hmac
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Header, HTTPException, Request, status
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from approvals_ui.deps import CurrentReviewer, authenticated_by_bearer
from approvals_ui.sessions import session_of

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

# No inline script or style anywhere: htmx and the stylesheet are files under /static.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    ]
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    # Not no-referrer: with it Chromium sends `Origin: null` on form posts, which the
    # CSRF origin check must refuse. same-origin still sends nothing to other sites.
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        is_static = scope["path"].startswith("/static/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.extend(SECURITY_HEADERS)
                if not is_static:  # pages show customer data: keep them out of caches
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


class CsrfRefused(HTTPException):
    def __init__(self) -> None:
        super().__init__(
            status.HTTP_403_FORBIDDEN,
            "This form has expired or did not come from this site. Reload the page and try again.",
        )


async def csrf_protect(request: Request) -> None:
    """Router dependency: refuses an unsafe request without the session's CSRF token."""
    if request.method not in UNSAFE_METHODS:
        return
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.url.netloc:
        raise CsrfRefused()
    sent = request.headers.get(CSRF_HEADER)
    if sent is None:
        form = await request.form()
        value = form.get(CSRF_FIELD)
        sent = value if isinstance(value, str) else None
    expected = session_of(request).get("csrf", "")
    if not sent or not hmac.compare_digest(sent.encode(), str(expected).encode()):
        raise CsrfRefused()


class NotJson(HTTPException):
    def __init__(self) -> None:
        super().__init__(
            status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
            "Send the body as JSON, with Content-Type: application/json.",
        )


async def api_csrf_protect(
    request: Request,
    _: CurrentReviewer,  # first: an unauthenticated request is a 401, not a 403
    x_csrf_token: Annotated[
        str | None,
        Header(
            alias="X-CSRF-Token",
            description="The session's CSRF token; required when the session cookie "
            "authenticates the request, not with a bearer token or in proxy mode.",
        ),
    ] = None,
) -> None:
    """Dependency of the API's POSTs: see the module note."""
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.url.netloc:
        raise CsrfRefused()
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise NotJson()
    if request.app.state.settings.auth == "proxy" or authenticated_by_bearer(request):
        return  # see the module note
    sent = x_csrf_token or ""
    expected = str(session_of(request).get("csrf", ""))
    if not sent or not hmac.compare_digest(sent.encode(), expected.encode()):
        raise CsrfRefused()
