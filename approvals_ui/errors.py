"""Every error becomes a page (or, for htmx and the API, a short answer) in plain words.

No stack trace and no exception text of ours reaches a response: unexpected errors
are logged on the server and the reviewer reads a generic message.
"""

from __future__ import annotations

import logging
from urllib.parse import quote

from fastapi import FastAPI, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from approvals_ui.deps import SignInRequired, TemporalUnavailable, UnknownProxyReviewer
from approvals_ui.templating import polled, render, request_language, request_words
from approvals_ui.words import N_, shown
from signoff.service.decisions import DecisionUnavailable

log = logging.getLogger("approvals_ui")

TITLES = {
    400: N_("That request was not valid"),
    401: N_("Please sign in"),
    403: N_("Not allowed"),
    404: N_("Not found"),
    405: N_("Not allowed"),
    409: N_("Not accepted"),
    415: N_("Not a JSON request"),
    422: N_("Not accepted"),
    429: N_("Too many requests"),
    503: N_("Temporarily unavailable"),
}


PROXY_SIGN_IN = N_(
    "You are not signed in. This server takes the reviewer from the auth proxy in front "
    "of it, and this request did not come through it."
)
UNKNOWN_PROXY_REVIEWER = N_(
    "The auth proxy signed you in under a name that is not a reviewer here. Ask an "
    "administrator to add you with `signoff user add`."
)
TEMPORAL_DOWN = N_(
    "Temporal cannot be reached. Start it with `make demo` (or `signoff dev`) and reload."
)
NO_SUCH_PAGE = N_("There is no such page.")
WRONG_METHOD = N_("This address does not take that kind of request.")
NOT_VALID = N_("The form or address was incomplete or not valid. Go back, reload and try again.")
OUR_FAULT = N_("Something went wrong on our side. Nothing was decided; try again in a moment.")
SOMETHING_WRONG = N_("Something went wrong")


def is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def is_event_stream(request: Request) -> bool:
    """A browser's EventSource (a run page's live stream): it reads no page."""
    return "text/event-stream" in request.headers.get("accept", "")


def wants_json(request: Request) -> bool:
    return is_api(request) or is_event_stream(request)


def wants_short_answer(request: Request) -> bool:
    return wants_json(request) or polled(request)


def proxy_mode(request: Request) -> bool:
    return bool(request.app.state.settings.auth == "proxy")


def error_page(request: Request, status_code: int, message: str) -> Response:
    if wants_json(request):
        return JSONResponse({"detail": message}, status_code=status_code)
    language = request_language(request)
    words = request_words(request)
    text, message_language = shown(message, words, language)
    title = words.gettext(TITLES.get(status_code, SOMETHING_WRONG))
    context = {"title": title, "message": text, "message_language": message_language}
    return render(request, "error.html", context, status_code)


async def sign_in_required(request: Request, _: Exception) -> Response:
    if wants_json(request):
        return JSONResponse(
            {"detail": PROXY_SIGN_IN if proxy_mode(request) else "Sign in first."},
            status_code=status.HTTP_401_UNAUTHORIZED,
        )
    if proxy_mode(request):  # no password sign-in to go to: it would loop
        return error_page(request, status.HTTP_401_UNAUTHORIZED, PROXY_SIGN_IN)
    if wants_short_answer(request):
        # htmx follows HX-Redirect: a polling inbox whose session ended goes to sign-in.
        return JSONResponse(
            {"detail": "Sign in first."},
            status_code=status.HTTP_401_UNAUTHORIZED,
            headers={"HX-Redirect": "/signin"},
        )
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/signin?next={quote(target)}", status.HTTP_303_SEE_OTHER)


async def unknown_proxy_reviewer(request: Request, _: Exception) -> Response:
    return error_page(request, status.HTTP_403_FORBIDDEN, UNKNOWN_PROXY_REVIEWER)


async def temporal_unavailable(request: Request, _: Exception) -> Response:
    return error_page(request, status.HTTP_503_SERVICE_UNAVAILABLE, TEMPORAL_DOWN)


async def decision_unavailable(request: Request, error: Exception) -> Response:
    assert isinstance(error, DecisionUnavailable)
    return error_page(request, status.HTTP_503_SERVICE_UNAVAILABLE, error.message)


async def http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, StarletteHTTPException)
    message = error.detail if isinstance(error.detail, str) else "The request was refused."
    if error.status_code == status.HTTP_404_NOT_FOUND and message == "Not Found":
        message = NO_SUCH_PAGE
    if error.status_code == status.HTTP_405_METHOD_NOT_ALLOWED:
        message = WRONG_METHOD
    return error_page(request, error.status_code, message)


async def invalid_request(request: Request, error: Exception) -> Response:
    if is_api(request) and isinstance(error, RequestValidationError):
        return JSONResponse(
            {"detail": validation_message(error)},
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    return error_page(request, status.HTTP_400_BAD_REQUEST, NOT_VALID)


def validation_message(error: RequestValidationError) -> str:
    """`body.action_hash: String should match pattern ...`: where and what, never input."""
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(part) for part in item.get("loc", ()))
        parts.append(f"{where}: {item.get('msg', 'not valid')}")
    return "The request was not valid. " + "; ".join(parts)


async def unexpected(request: Request, error: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    return error_page(request, status.HTTP_500_INTERNAL_SERVER_ERROR, OUR_FAULT)


def install(app: FastAPI) -> None:
    app.add_exception_handler(SignInRequired, sign_in_required)
    app.add_exception_handler(TemporalUnavailable, temporal_unavailable)
    app.add_exception_handler(DecisionUnavailable, decision_unavailable)
    app.add_exception_handler(UnknownProxyReviewer, unknown_proxy_reviewer)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(Exception, unexpected)
