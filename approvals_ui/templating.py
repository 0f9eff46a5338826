"""Jinja2 templates with autoescape on, and the filters the pages share.

Ticket text is customer data: templates print it with `{{ }}` (escaped) and never with
`|safe`; tests put `<script>` in a ticket to hold that line.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from starlette.responses import HTMLResponse

from approvals_ui.readable import readable_event
from approvals_ui.sessions import session_of
from approvals_ui.time_format import utc_time
from signoff.service.pending import time_left
from workflows.approval_policy import money
from workflows.approval_requirements import missing, next_step_refusal

TEMPLATES_DIR = Path(__file__).parent / "templates"
SHORT_HASH = 12
EXCERPT_CHARS = 140

templates = Jinja2Templates(directory=TEMPLATES_DIR)
templates.env.autoescape = True


def short_hash(value: str) -> str:
    return value[:SHORT_HASH]


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def utc(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


templates.env.filters["short_hash"] = short_hash
templates.env.filters["excerpt"] = excerpt
# Every time on a page is a <time> to the second, UTC, its local time in a tooltip.
templates.env.filters["utc"] = utc_time
templates.env.filters["utc_time"] = utc_time
templates.env.filters["readable_event"] = readable_event
templates.env.filters["money"] = money
# N of M, a role, a chain: what an action still needs (workflows/approval_requirements.py).
templates.env.filters["still_missing"] = missing
templates.env.filters["next_step_refusal"] = lambda action, reviewer: (
    next_step_refusal(action, reviewer.id, reviewer.roles) or ""
)


def polled(request: Request) -> bool:
    """A request htmx sent on its own (a refresh), not a page the reviewer opened."""
    return request.headers.get("hx-request") == "true"


def render(
    request: Request, name: str, context: dict[str, Any], status_code: int = 200
) -> HTMLResponse:
    session = session_of(request)
    now = datetime.now(UTC)
    base = {
        "csrf_token": session.get("csrf", ""),
        # A notice is for the next page a person opens, never for a background poll.
        "notice": None if polled(request) else session.pop("notice", None),
        "now": now,
        "time_left": lambda expires_at: time_left(expires_at, now),
        "refresh_seconds": request.app.state.settings.ui_inbox_refresh_seconds,
        "auth_mode": request.app.state.settings.auth,
        "polled": polled(request),
    }
    return templates.TemplateResponse(request, name, {**base, **context}, status_code=status_code)
