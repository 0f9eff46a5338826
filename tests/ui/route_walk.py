"""The reviewer app's pages, read from its own route table: a page added to the app is
walked by the tests without editing them.

Which routes are pages is decided by rule, never by a list of pages:

- only the app's GET routes are read; `/static` is a mount of files, no route;
- paths for programs are left out by prefix, `/api/` (the JSON API, the helpdesk and
  Slack webhooks, Temporal's codec, the OpenAPI schema: the line the app's own
  `errors.is_api` draws, where even an error answers JSON) and `/metrics` (Prometheus);
- each other route is asked as a browser asks (`Accept: text/html`), signed out, then,
  when it sends you to sign in, signed in. It is a page when it answers 200 with an HTML
  document (`<!doctype html>`). A redirect (`/`), another media type (the audit's CSV, a
  run's event stream, read no further than its headers) or HTML that is no document
  (htmx fragments: the inbox's polled rows, the batch summary) is not one;
- a route that answers an error fails the walk: the value given to its parameter
  opened nothing, or the route is broken.

A path parameter (`{run_id}`, `{code}`, ...) takes its value from a table keyed by the
parameter's name, filled from seeded data by the test. A parameter with no value fails
the walk, saying where to add one: a route is never skipped unseen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from starlette import status

from tests.ui.conftest import csrf_of

PROGRAM_PREFIXES = ("/api/", "/metrics")
DOCUMENT = re.compile(rb"^\s*<!doctype html>", re.IGNORECASE)
PARAMETER = re.compile(r"{(\w+)(?::\w+)?}")
BROWSER_ACCEPT = "text/html,application/xhtml+xml"
TIMEOUT_SECONDS = 30


@dataclass(frozen=True)
class Page:
    route: str  # as the app declares it: /approvals/{run_id}
    path: str  # with its parameters' values: /approvals/run-demo-…
    signed_in: bool  # False: a page for the signed-out (the sign-in page)

    @property
    def name(self) -> str:
        """The route as a file name: `approvals-run_id` for /approvals/{run_id}."""
        return self.route.strip("/").replace("/", "-").replace("{", "").replace("}", "")


def get_routes(app: FastAPI) -> list[str]:
    """The paths of the app's GET routes that are not for programs, in its order (with
    their routers' prefixes: FastAPI's own walk over the routers the app includes)."""
    return [
        route.path
        for route in iter_route_contexts(app.routes)
        if route.path is not None
        and "GET" in (route.methods or ())
        and not route.path.startswith(PROGRAM_PREFIXES)
    ]


def filled(route: str, values: Mapping[str, str], table: str) -> str:
    """The route's path with each parameter's value; fails naming the missing one."""

    def value(found: re.Match[str]) -> str:
        name = found.group(1)
        if name not in values:
            pytest.fail(
                f"{route}: no value for the path parameter {{{name}}}. Add one, from "
                f"seeded data, to {table}, so that the page is walked.",
                pytrace=False,
            )
        return values[name]

    return PARAMETER.sub(value, route)


def pages_of(
    app: FastAPI, values: Mapping[str, str], table: str, base_url: str, login: tuple[str, str]
) -> tuple[list[Page], dict[str, str]]:
    """Every page of the app, signed-out ones first, and what each other GET route that
    is not for programs answered instead (`route: why it is not a page`). `table` names
    where the test keeps `values`, for the message of a parameter without one."""
    pages: list[Page] = []
    others: dict[str, str] = {}
    with (
        httpx.Client(base_url=base_url, timeout=TIMEOUT_SECONDS) as signed_out,
        signed_in_client(base_url, *login) as signed_in,
    ):
        for route in get_routes(app):
            path = filled(route, values, table)
            answer = ask(signed_out, path)
            is_signed_in = answer.startswith("redirect to /signin")
            if is_signed_in:
                answer = ask(signed_in, path)
            if answer == "page":
                pages.append(Page(route, path, is_signed_in))
            else:
                others[route] = answer
    return sorted(pages, key=lambda page: page.signed_in), others


@contextmanager
def signed_in_client(base_url: str, name: str, password: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=TIMEOUT_SECONDS) as client:
        token = csrf_of(client.get("/signin").text)
        answer = client.post(
            "/signin", data={"csrf_token": token, "username": name, "password": password}
        )
        assert answer.status_code == status.HTTP_303_SEE_OTHER, answer.text
        yield client


def ask(client: httpx.Client, path: str) -> str:
    """`page`, or what the route answered instead, in words. Only the headers and the
    first bytes are read: an event stream does not end by itself."""
    with client.stream("GET", path, headers={"Accept": BROWSER_ACCEPT}) as answer:
        code = answer.status_code
        kind = answer.headers.get("content-type", "").split(";")[0]
        if answer.is_redirect:
            return f"redirect to {answer.headers['location']}"
        start = next(answer.iter_bytes(), b"") if kind == "text/html" else b""
    document = bool(DOCUMENT.match(start))
    assert code < status.HTTP_400_BAD_REQUEST, (
        f"GET {path} answered {code} ({kind}): give its parameters values that open it"
    )
    if kind != "text/html":
        return f"{kind}, not HTML"
    return "page" if document else "HTML fragment (htmx), no document"
