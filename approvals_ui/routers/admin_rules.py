"""The administrator's page of standing rules (`/admin/rules`): the tenant's rules, the
form that makes one, and a revoke button on each active one.

For administrators of the tenant only (403 for anyone else); the store checks the
administrator again in the change's own transaction. Forms carry the session's CSRF
token like every other form (security.py). The rule is read by the same service
function as the JSON API and the CLI (signoff/service/standing_rules.py).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Depends, Form, HTTPException, Request, status
from fastapi.responses import RedirectResponse, Response

from approvals_ui.amount_input import NotAnAmount, amount_for_the_run
from approvals_ui.decision_words import translated
from approvals_ui.deps import CurrentReviewer, EngineDep, SettingsDep
from approvals_ui.sessions import session_of
from approvals_ui.templating import render, request_language, request_words
from approvals_ui.words import N_, shown
from signoff.service.reviewer_access import SignedInReviewer
from signoff.service.standing_rules import (
    InvalidRule,
    RuleAlreadyRevoked,
    RuleRefused,
    UnknownRule,
    add_rule,
    revoke,
    rule_request,
    rules_of,
)
from workflows.wording import Wording

router = APIRouter(tags=["standing rules"])

PAGE = "/admin/rules"
NOT_ADMIN = N_(
    "Standing rules are made and revoked by an administrator of your tenant. Ask one if a "
    "rule is needed."
)
MADE = N_("Standing rule %(rule)s is made. It approves what it covers from now on.")
REVOKED = N_("Standing rule %(rule)s is revoked. It approves nothing from now on.")
FORM_TEXT = 200
# A rule's state, as rule_state names it (activities/store/standing_rules.py).
STATES = {
    "active": N_("active"),
    "revoked": N_("revoked"),
    "expired": N_("expired"),
    "used up": N_("used up"),
}


def admin_only(request: Request, reviewer: CurrentReviewer) -> SignedInReviewer:
    if not reviewer.is_admin:
        raise HTTPException(status.HTTP_403_FORBIDDEN, request_words(request).gettext(NOT_ADMIN))
    return reviewer


Admin = Annotated[SignedInReviewer, Depends(admin_only)]
Text = Annotated[str, Form(max_length=FORM_TEXT)]


@router.get(PAGE)
async def rules_page(request: Request, admin: Admin, engine: EngineDep) -> Response:
    return await _page(request, admin, engine)


async def _page(
    request: Request,
    admin: SignedInReviewer,
    engine: EngineDep,
    error: str | Wording | None = None,
    status_code: int = status.HTTP_200_OK,
    typed: dict[str, str] | None = None,
) -> Response:
    found = await asyncio.to_thread(rules_of, engine, admin.tenant_id, True)
    words = request_words(request)
    states = translated(STATES, words)
    error_text, error_language = (
        shown(error, words, request_language(request)) if error else (None, None)
    )
    context = {
        "reviewer": admin,
        "rules": found,
        "error": error_text,
        "error_language": error_language,
        "states": states,
        # A refused form is shown again with what the administrator typed in it.
        "typed": typed or {},
    }
    return render(request, "admin_rules.html", context, status_code)


@router.post(PAGE)
async def make_rule(
    request: Request,
    admin: Admin,
    engine: EngineDep,
    settings: SettingsDep,
    tool: Text,
    lifetime: Text,
    max_uses: Text,
    max_amount: Text = "",
    currency: Text = "",
    customer: Text = "",
    category: Text = "",
    shadow: Annotated[str | None, Form(max_length=8)] = None,
) -> Response:
    now = datetime.now(UTC)
    typed = {
        "tool": tool,
        "lifetime": lifetime,
        "max_uses": max_uses,
        "max_amount": max_amount,
        "currency": currency,
        "customer": customer,
        "category": category,
        "shadow": "on" if shadow is not None else "",
    }
    refused = partial(_page, request, admin, engine, status_code=status.HTTP_400_BAD_REQUEST)
    try:
        # Typed as the page's language writes amounts (`50,00` in French).
        amount = (
            amount_for_the_run(max_amount, request_language(request)) if max_amount.strip() else ""
        )
    except NotAnAmount as not_an_amount:
        return await refused(not_an_amount.wording, typed=typed)
    try:
        uses = int(max_uses.strip()) if max_uses.strip().isdigit() else 0
        asked = rule_request(
            tenant_id=admin.tenant_id,
            tool=tool,
            max_amount=amount,
            currency=currency,
            customer=customer,
            category=category,
            lifetime=lifetime,
            max_uses=uses,
            shadow=shadow is not None,
            now=now,
            longest_lifetime=timedelta(days=settings.rule_max_lifetime_days),
        )
        signer = request.app.state.decision_signer
        made = await asyncio.to_thread(add_rule, engine, signer, admin.id, asked, now)
    except InvalidRule as invalid:
        return await refused(invalid.wording or str(invalid), typed=typed)
    except RuleRefused as not_allowed:
        return await refused(str(not_allowed), typed=typed)
    session_of(request)["notice"] = request_words(request).gettext(MADE) % {"rule": made.id}
    return RedirectResponse(PAGE, status.HTTP_303_SEE_OTHER)


@router.post(PAGE + "/{rule_id}/revoke")
async def revoke_rule(request: Request, rule_id: str, admin: Admin, engine: EngineDep) -> Response:
    try:
        revoked = await asyncio.to_thread(revoke, engine, admin.id, admin.tenant_id, rule_id)
    except (RuleRefused, UnknownRule, RuleAlreadyRevoked) as refused:
        return await _page(request, admin, engine, str(refused), status.HTTP_400_BAD_REQUEST)
    session_of(request)["notice"] = request_words(request).gettext(REVOKED) % {"rule": revoked.id}
    return RedirectResponse(PAGE, status.HTTP_303_SEE_OTHER)
