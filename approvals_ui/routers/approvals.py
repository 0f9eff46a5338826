"""The inbox of pending actions and the page where a reviewer decides on one."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Depends, Form, HTTPException, Query, Request, status
from fastapi.responses import RedirectResponse, Response

from approvals_ui.amount_input import NotAnAmount, amount_for_the_run
from approvals_ui.decision_fields import (
    ActionHashForm,
    CategoryForm,
    ReasonForm,
    TypedDecision,
    VerdictForm,
)
from approvals_ui.decision_sending import decide_as
from approvals_ui.decision_words import (
    ORDER_STATUSES,
    REJECT_LABELS,
    RUN_STATUSES,
    no_role_refusal,
    result_notice,
    translated,
)
from approvals_ui.deps import (
    CurrentReviewer,
    EngineDep,
    SettingsDep,
    TemporalDep,
    get_payments,
)
from approvals_ui.inbox_view import ChoiceQuery, InboxView, arranged_rows, inbox_view
from approvals_ui.lookups import (
    pending_by_hash,
    run_context,
    run_for_reviewer,
    run_to_decide,
)
from approvals_ui.passkey_forms import MAX_ASSERTION_CHARS, passkey_answer
from approvals_ui.sessions import session_of
from approvals_ui.templating import render, request_language, request_words
from approvals_ui.words import N_, shown
from signoff.config.settings import MAX_PAGE_SIZE
from signoff.service.action_cards import card_of
from signoff.service.decisions import (
    Choice,
    DecisionNotAccepted,
    InvalidDecision,
    InvalidHash,
)
from signoff.service.paging import MAX_CURSOR_LENGTH, InvalidCursor
from signoff.service.passkey_step_up import PasskeyRefused, PasskeyRequired
from signoff.service.passkeys import passkeys_of
from signoff.service.trajectory import trajectory_or_none
from workflows.actions import REFUND_APPROVER_ROLE, PendingAction
from workflows.wording import Wording

router = APIRouter(prefix="/approvals", tags=["approvals"])

UNKNOWN_PAGE = N_(
    "This page address is not one the inbox gave out. Open the first page of the inbox."
)
NO_VALID_HASH = N_("The form did not carry a valid action hash. Reload the page and decide again.")


# `after` is the cursor of a page (the position of the previous page's last request);
# the inbox never uses page numbers, which shift when a request ahead is decided.
AfterQuery = Annotated[str | None, Query(max_length=MAX_CURSOR_LENGTH)]
# The boxes ticked in the inbox, sent back by each poll so that the new list keeps them:
# as many as a page can show (a batch is bounded when it is sent, in words).
SelectedQuery = Annotated[list[str] | None, Query(max_length=MAX_PAGE_SIZE)]


@dataclass(frozen=True)
class InboxListing:
    """Which page of the inbox, in which view: what every inbox request's query says."""

    after: str | None
    view: InboxView


def inbox_listing(
    after: AfterQuery = None, sort: ChoiceQuery = "", mode: ChoiceQuery = ""
) -> InboxListing:
    return InboxListing(after, inbox_view(sort, mode))


ListingQuery = Annotated[InboxListing, Depends(inbox_listing)]


@router.get("")
async def inbox(
    request: Request,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    settings: SettingsDep,
    listing: ListingQuery,
) -> Response:
    return await _inbox(request, reviewer, engine, settings, listing, "inbox.html", set())


@router.get("/rows")
async def inbox_fragment(
    request: Request,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    settings: SettingsDep,
    listing: ListingQuery,
    selected: SelectedQuery = None,
) -> Response:
    """The list alone, polled by htmx so that it follows arrivals, expiries and decisions."""
    ticked = set(selected or [])
    return await _inbox(request, reviewer, engine, settings, listing, "_inbox_rows.html", ticked)


async def _inbox(
    request: Request,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    settings: SettingsDep,
    listing: InboxListing,
    template: str,
    selected: set[str],
) -> Response:
    """The tenant's page, from the store's read model: the inbox lists without Temporal."""
    try:
        page, listed = await arranged_rows(
            engine, reviewer.tenant_id, listing.view, settings.page_size, listing.after
        )
    except InvalidCursor:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, UNKNOWN_PAGE) from None
    return render(
        request,
        template,
        {
            "reviewer": reviewer,
            "rows": page.items,
            "total": page.total,
            "waiting_all": listed.waiting_all,
            "waiting_runs": listed.waiting_runs,
            "unread_runs": listed.unread_runs,
            "first": page.first or 0,
            "after": listing.after,
            "next": page.next,
            "view": listing.view,
            "selected": selected,
        },
    )


@router.get("/{run_id}")
async def detail(
    request: Request,
    run_id: str,
    reviewer: CurrentReviewer,
    client: TemporalDep,
    engine: EngineDep,
) -> Response:
    return await _detail(request, run_id, reviewer, client, engine)


async def _detail(
    request: Request,
    run_id: str,
    reviewer: CurrentReviewer,
    client: TemporalDep,
    engine: EngineDep,
    refusal: str | Wording | None = None,
    status_code: int = status.HTTP_200_OK,
    typed: TypedDecision | None = None,
) -> Response:
    state = await run_for_reviewer(client, run_id, reviewer)
    context = await run_context(engine, state, get_payments(request))
    words = request_words(request)
    refusal_text, refusal_language = (
        shown(refusal, words, request_language(request)) if refusal else (None, None)
    )
    return render(
        request,
        "detail.html",
        {
            "reviewer": reviewer,
            "run": context,
            "state": state,
            # Each waiting action's card, from this server's own profiles (action_cards.py).
            "cards": {
                action.action_hash: card_of(action, request.app.state.profiles)
                for action in state.pending_actions
            },
            "trajectory": await trajectory_or_none(client, run_id),
            "refusal": refusal_text,
            "refusal_language": refusal_language,
            # A refused form is shown again with what the reviewer typed in it.
            "typed": typed or TypedDecision(action_hash="", form="approve"),
            "approver_role": REFUND_APPROVER_ROLE,
            "reject_categories": list(translated(REJECT_LABELS, words).items()),
            "order_statuses": translated(ORDER_STATUSES, words),
            "run_statuses": translated(RUN_STATUSES, words),
            "needs_passkey": request.app.state.passkey_policy.needs_passkey,
            "has_passkey": bool(await asyncio.to_thread(passkeys_of, engine, reviewer.id)),
        },
        status_code,
    )


@router.post("/{run_id}/decision")
async def decide(
    request: Request,
    run_id: str,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    action_hash: ActionHashForm,
    verdict: VerdictForm,
    reason: ReasonForm = "",
    category: CategoryForm = "",
    edit: Annotated[str, Form(max_length=1)] = "",
    passkey_issued_at: Annotated[str, Form(max_length=64)] = "",
    passkey_nonce: Annotated[str, Form(max_length=64)] = "",
    passkey_assertion: Annotated[str, Form(max_length=MAX_ASSERTION_CHARS)] = "",
) -> Response:
    """Sends the signed `decide` update as the signed-in reviewer; the run has the last word.

    Identity, roles and tenant come from the store, never from the form. With `edit`,
    the form's `edit_<argument>` fields are the reviewer's changes. Where the policy asks
    for a passkey, the form carries the assertion `passkeys.js` made over the decision's
    challenge (`passkey_challenge` below), with its draft's issued-at and nonce.
    """
    client, state = await run_to_decide(request, run_id, reviewer)  # 404: another tenant's
    action = pending_by_hash(state, action_hash)
    typed_edits = await _typed_edits(request, action) if edit else {}
    typed = TypedDecision(
        action_hash=action_hash,
        form="edit" if edit else verdict,
        reason=reason,
        category=category,
        edits=typed_edits,
    )
    # The run's page again, saying why nothing was decided, its form as it was typed.
    refused_page = partial(_detail, request, run_id, reviewer, client, engine, typed=typed)
    if not reviewer.may_decide(action):
        words = request_words(request)
        return await refused_page(no_role_refusal(words, action), status.HTTP_403_FORBIDDEN)
    try:
        edits = _edits_for_the_run(action, typed_edits, request_language(request))
    except NotAnAmount as not_an_amount:
        return await refused_page(not_an_amount.wording, status.HTTP_400_BAD_REQUEST)
    try:
        result = await decide_as(
            request,
            client,
            reviewer,
            run_id,
            action_hash,
            verdict,
            reason,
            Choice(
                category=category or None,
                edits=edits if edit else None,
                action=action,
            ),
            passkey_answer(passkey_issued_at, passkey_nonce, passkey_assertion),
        )
    except (PasskeyRequired, PasskeyRefused) as step_up_refused:
        return await refused_page(step_up_refused.message, status.HTTP_403_FORBIDDEN)
    except InvalidHash:
        return await refused_page(NO_VALID_HASH, status.HTTP_400_BAD_REQUEST)
    except InvalidDecision as invalid:
        return await refused_page(invalid.wording or str(invalid), status.HTTP_400_BAD_REQUEST)
    except DecisionNotAccepted as refused:
        return await refused_page(refused.wording or refused.message, status.HTTP_409_CONFLICT)
    words, language = request_words(request), request_language(request)
    session_of(request)["notice"] = result_notice(result, words, language)
    return RedirectResponse(f"/approvals/{run_id}", status.HTTP_303_SEE_OTHER)


async def _typed_edits(request: Request, action: PendingAction | None) -> dict[str, str]:
    """The `edit_<argument>` fields the form sent, as typed, for the arguments the action
    lets a reviewer edit (any other field is ignored; the run refuses unknown edits anyway)."""
    form = await request.form()
    names = action.editable if action is not None else []
    return {name: value for name in names if isinstance(value := form.get(f"edit_{name}"), str)}


def _edits_for_the_run(
    action: PendingAction | None, typed: dict[str, str], language: str
) -> dict[str, str]:
    """The edits as the run reads them: the amount typed the page language's way
    (`20,00` in French) becomes `20.00`; NotAnAmount says why one is no amount."""
    exposure = action.exposure if action is not None else None
    if exposure is None or exposure.amount_argument not in typed:
        return typed
    name = exposure.amount_argument
    return {**typed, name: amount_for_the_run(typed[name], language)}
