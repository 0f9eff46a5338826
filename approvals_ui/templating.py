"""Jinja2 templates with autoescape on, and the filters the pages share.

Ticket text is customer data: templates print it with `{{ }}` (escaped) and never with
`|safe`; tests put `<script>` in a ticket to hold that line.

Every page is written in one language (`page_language`: the reviewer's choice, else the
browser's Accept-Language, else English). One environment serves every language: the
page's catalog travels in the template context, and `_()`, `{% trans %}` and the
locale-aware filters (times, amounts) read it from there, so two requests in two
languages never share a catalog (`install_gettext_translations` would set one catalog
for the whole environment).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from gettext import NullTranslations
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader, pass_context
from jinja2.runtime import Context
from markupsafe import Markup
from starlette.responses import HTMLResponse

from approvals_ui.decision_words import ORDER_STATUSES, REJECT_LABELS, RUN_STATUSES
from approvals_ui.locale_choice import page_language
from approvals_ui.money_format import amount_text, cost_text, minor_text
from approvals_ui.readable import readable_event
from approvals_ui.role_words import MODE_LABELS, ROLE_LABELS, asked_by, in_order_text, roles_text
from approvals_ui.run_words import (
    BATCH_RESULTS,
    DECISION_KINDS,
    EVENT_KINDS,
    OUTCOME_REASONS,
    said,
)
from approvals_ui.sessions import session_of
from approvals_ui.time_format import countdown_words, time_left_text, utc_time
from approvals_ui.translations import translations
from approvals_ui.words import N_, shown
from signoff.service.languages import LANGUAGES, SOURCE_LANGUAGE
from signoff.service.reviewer_access import SignedInReviewer
from workflows.actions import PendingAction
from workflows.approval_requirements import missing_words, next_step_words
from workflows.outside_text import without_bidi
from workflows.wording import Wording

TEMPLATES_DIR = Path(__file__).parent / "templates"
SHORT_HASH = 12
EXCERPT_CHARS = 140

templates = Jinja2Templates(
    env=Environment(
        loader=FileSystemLoader(TEMPLATES_DIR), autoescape=True, extensions=["jinja2.ext.i18n"]
    )
)


def short_hash(value: str) -> str:
    return value[:SHORT_HASH]


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def isolated(value: object) -> Markup:
    """Data set apart in its own direction (escaped, in `<bdi>`): a name with a
    right-to-left override cannot reorder the words and the ids around it."""
    return Markup("<bdi>{}</bdi>").format(value)


def _without_bidi(value: object) -> str:
    return without_bidi(str(value))


def _language(context: Context) -> str:
    language = context.get("language", SOURCE_LANGUAGE)
    return language if isinstance(language, str) else SOURCE_LANGUAGE


def _words(context: Context) -> NullTranslations:
    words = context.get("translations")
    return words if isinstance(words, NullTranslations) else translations(_language(context))


@pass_context
def _gettext(context: Context, message: str) -> str:
    return _words(context).gettext(message)


@pass_context
def _ngettext(context: Context, singular: str, plural: str, count: int) -> str:
    return _words(context).ngettext(singular, plural, count)


@pass_context
def _utc_time(context: Context, value: datetime) -> Markup:
    """Every time on a page: a <time> to the second, UTC, its local time in a tooltip."""
    return utc_time(value, _language(context))


@pass_context
def _money(context: Context, minor: int, currency: str | None = None) -> str:
    return minor_text(minor, currency, _language(context))


@pass_context
def _amount(context: Context, amount: Decimal | str, currency: str | None = None) -> str:
    return amount_text(amount, currency, _language(context))


# The words for a code the run or the store holds, by the table that names it:
# `{{ decision.kind|said("decision") }}`.
CODE_WORDS = {
    "decision": DECISION_KINDS,
    "outcome_reason": OUTCOME_REASONS,
    "event": EVENT_KINDS,
    "batch_result": BATCH_RESULTS,
    "run_status": RUN_STATUSES,
    "order_status": ORDER_STATUSES,
    "reject": REJECT_LABELS,
    "mode": MODE_LABELS,
    "role": ROLE_LABELS,
}


@pass_context
def _said(context: Context, code: str | None, table: str) -> str:
    return said(code, CODE_WORDS[table], _words(context))


@pass_context
def _roles(context: Context, roles: list[str] | tuple[str, ...]) -> str:
    return roles_text(roles, _words(context))


@pass_context
def _asked_by(context: Context, actor_id: str | None) -> str:
    return asked_by(actor_id, _words(context))


def ident(value: object) -> Markup:
    """An id (order, ticket, run) as one piece that never breaks at its hyphen, in its
    own direction (`isolated`)."""
    return Markup('<bdi class="id">{}</bdi>').format(value)


@pass_context
def _cost(context: Context, cost: Decimal | str) -> str:
    return cost_text(cost, _language(context))


def _worded(context: Context, wording: Wording | None) -> str:
    """A sentence the core keeps as a template and values, in the page's language."""
    if wording is None:
        return ""
    return shown(wording, _words(context), _language(context))[0]


@pass_context
def _still_missing(context: Context, action: PendingAction) -> str:
    return _worded(context, missing_words(action))


@pass_context
def _next_step_refusal(context: Context, action: PendingAction, reviewer: SignedInReviewer) -> str:
    return _worded(context, next_step_words(action, reviewer.id, reviewer.roles))


@pass_context
def _in_order(context: Context, names: list[str]) -> str:
    """A chain's roles in support words, `support lead, then finance`, joined in the
    page's language."""
    return in_order_text(names, _words(context))


templates.env.install_gettext_callables(  # type: ignore[attr-defined]  # the i18n extension's
    _gettext, _ngettext, newstyle=True
)
templates.env.filters["short_hash"] = short_hash
templates.env.filters["excerpt"] = excerpt
templates.env.filters["isolated"] = isolated
templates.env.filters["ident"] = ident
# Roles and who asked for a run in support words (role_words.py); codes stay for operators.
templates.env.filters["roles"] = _roles
templates.env.filters["asked_by"] = _asked_by
# For a page's <title>, which holds no markup to isolate data in.
templates.env.filters["without_bidi"] = _without_bidi
templates.env.filters["utc"] = _utc_time
templates.env.filters["utc_time"] = _utc_time
templates.env.filters["readable_event"] = readable_event
templates.env.filters["said"] = _said
templates.env.filters["money"] = _money
templates.env.filters["amount"] = _amount
templates.env.filters["cost"] = _cost
# N of M, a role, a chain: what an action still needs (workflows/approval_requirements.py).
templates.env.filters["still_missing"] = _still_missing
templates.env.filters["next_step_refusal"] = _next_step_refusal
templates.env.filters["in_order"] = _in_order


def polled(request: Request) -> bool:
    """A request htmx sent on its own (a refresh), not a page the reviewer opened."""
    return request.headers.get("hx-request") == "true"


def request_language(request: Request) -> str:
    """The language of the pages this request gets: the signed-in reviewer's choice
    (set on request.state by deps.get_reviewer_or_none), else Accept-Language."""
    preference = getattr(request.state, "language_preference", None)
    return page_language(preference, request.headers.get("accept-language"))


def request_words(request: Request) -> NullTranslations:
    """The catalog of this request's language, for words written outside a template."""
    return translations(request_language(request))


def passkey_words(words: NullTranslations) -> dict[str, str]:
    """What `static/passkeys.js` writes, in the page's language (`{0}` for a value)."""
    return {
        "registered": words.gettext(N_("Your passkey is registered.")),
        "signed": words.gettext(N_("Passkey signed; sending your decision…")),
        "failed": words.gettext(N_("Nothing was decided or stored: %(error)s")) % {"error": "{0}"},
        "refused": words.gettext(N_("The server refused (%(status)s).")) % {"status": "{0}"},
    }


def page_context(language: str, now: datetime) -> dict[str, Any]:
    """What every template of a page in `language` reads: its catalog, and the time left
    to decide as of `now`, in its words (a page, and a live fragment sent on its own)."""
    words = translations(language)
    return {
        "now": now,
        "language": language,
        "translations": words,
        "time_left": lambda expires_at, bare=False: time_left_text(
            expires_at, now, language, words, bare=bare
        ),
    }


def render(
    request: Request, name: str, context: dict[str, Any], status_code: int = 200
) -> HTMLResponse:
    session = session_of(request)
    now = datetime.now(UTC)
    language = request_language(request)
    words = translations(language)
    base = {
        **page_context(language, now),
        "csrf_token": session.get("csrf", ""),
        # A notice is for the next page a person opens, never for a background poll.
        "notice": None if polled(request) else session.pop("notice", None),
        "refresh_seconds": request.app.state.settings.ui_inbox_refresh_seconds,
        "auth_mode": request.app.state.settings.auth,
        "polled": polled(request),
        "languages": LANGUAGES,
        "countdown_words": json.dumps(countdown_words(language, words), ensure_ascii=False),
        "passkey_words": json.dumps(passkey_words(words), ensure_ascii=False),
    }
    response = templates.TemplateResponse(
        request, name, {**base, **context}, status_code=status_code
    )
    response.headers["Content-Language"] = language
    return response
