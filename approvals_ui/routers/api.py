"""The JSON API for integrations: the same reads as the pages, and the decision.

Authentication is the UI's: the session cookie (a POST then also needs the session's
token in `X-CSRF-Token`), or the auth proxy's header in proxy mode; or, in either mode,
a reviewer's personal token in `Authorization: Bearer` (`signoff user token`); or, in
session mode, the reviewer's password as `Authorization: Basic` (how `signoff approve`
decides: this server is the decision service, the only holder of a signing key). Every
refusal is `{"detail": "..."}` with the status code documented on the route.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request, status

from approvals_ui.api_models import (
    ApiError,
    ApprovalDetail,
    ApprovalList,
    DecisionBody,
    PendingApproval,
    RefundView,
    Reviewer,
    TicketView,
    progress_of,
)
from approvals_ui.decision_sending import decide_as
from approvals_ui.deps import (
    CurrentReviewer,
    EngineDep,
    PaymentsDep,
    SettingsDep,
    TemporalDep,
    authenticated_by_bearer,
)
from approvals_ui.lookups import (
    inbox_page,
    no_role_message,
    pending_by_hash,
    run_context,
    run_for_reviewer,
    run_to_decide,
)
from approvals_ui.security import api_csrf_protect
from approvals_ui.sessions import session_of
from approvals_ui.templating import excerpt
from signoff.config.settings import MAX_PAGE_SIZE
from signoff.service.accounts import reviewer_name_key
from signoff.service.decisions import Choice, DecisionNotAccepted, InvalidDecision
from signoff.service.paging import MAX_CURSOR_LENGTH, InvalidCursor
from signoff.service.passkey_step_up import PasskeyRequired
from signoff.service.reviewer_access import SignedInReviewer
from workflows.actions import DecisionResult
from workflows.contracts import RunState


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ApiError} for code in codes}


READ_ERRORS = _errors(401, 403, 404, 422, 503)
router = APIRouter(prefix="/api", tags=["api"], responses=_errors(401, 403, 503))


@router.get("/me", summary="The signed-in reviewer")
def me(request: Request, reviewer: CurrentReviewer, settings: SettingsDep) -> Reviewer:
    by_cookie = settings.auth == "session" and not authenticated_by_bearer(request)
    csrf = session_of(request).get("csrf") if by_cookie else None
    return Reviewer(
        id=reviewer.id,
        tenant_id=reviewer.tenant_id,
        display_name=reviewer.display_name,
        roles=list(reviewer.roles),
        can_decide=reviewer.can_decide,
        csrf_token=csrf if isinstance(csrf, str) else None,
    )


@router.get(
    "/approvals",
    summary="Pending actions of the reviewer's tenant, soonest expiry first, a page at a time",
    description="`total` counts every pending action of the tenant, not this page; "
    "`waiting_runs` counts the runs waiting (a run may hold more than one action). Pass "
    "`next` back as `after` for the following page; `next` is null on the last page. "
    "`limit` defaults to SIGNOFF_PAGE_SIZE. An `after` this API did not give out is a 422.",
    responses=_errors(401, 403, 422, 503),
)
async def approvals(
    reviewer: CurrentReviewer,
    engine: EngineDep,
    settings: SettingsDep,
    limit: Annotated[int | None, Query(ge=1, le=MAX_PAGE_SIZE)] = None,
    after: Annotated[str | None, Query(max_length=MAX_CURSOR_LENGTH)] = None,
) -> ApprovalList:
    try:
        page, listed = await inbox_page(
            engine, reviewer.tenant_id, limit or settings.page_size, after
        )
    except InvalidCursor as error:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(error)) from None
    return ApprovalList(
        total=page.total,
        waiting_runs=listed.waiting_runs,
        unread_runs=listed.unread_runs,
        items=[
            PendingApproval(
                run_id=row.item.run_id,
                tenant_id=row.item.tenant_id,
                ticket_id=row.item.ticket_id,
                ticket_excerpt=excerpt(row.ticket_excerpt),
                action=row.item.action,
                progress=progress_of(row.item.action, reviewer.id, reviewer.roles),
            )
            for row in page.items
        ],
        next=page.next,
    )


@router.get(
    "/approvals/{run_id}",
    summary="One run's pending actions, with the raw ticket and the order's prior refunds",
    responses=READ_ERRORS,
)
async def approval(
    run_id: str,
    reviewer: CurrentReviewer,
    client: TemporalDep,
    engine: EngineDep,
    payments: PaymentsDep,
) -> ApprovalDetail:
    state = await run_for_reviewer(client, run_id, reviewer)
    context = await run_context(engine, state, payments)
    ticket = (
        TicketView(
            id=state.ticket_id,
            customer_name=context.customer_name,
            created_at=context.ticket_created_at,
            text=context.ticket_text,
        )
        if context.ticket_text is not None
        else None
    )
    return ApprovalDetail(
        run_id=state.run_id,
        status=state.status,
        ticket=ticket,
        pending_actions=state.pending_actions,
        progress=[
            progress_of(action, reviewer.id, reviewer.roles) for action in state.pending_actions
        ],
        prior_refunds=[
            RefundView(
                id=refund.id,
                order_id=refund.order_id,
                amount=refund.amount,
                currency=refund.currency,
                approvers=refund.approver_list,
                created_at=refund.created_at,
            )
            for refund in context.prior_refunds
        ],
        decisions=state.decisions,
    )


@router.get(
    "/runs/{run_id}",
    summary="A run's state: timeline, tool calls, decisions, outcome",
    responses=READ_ERRORS,
)
async def run(run_id: str, reviewer: CurrentReviewer, client: TemporalDep) -> RunState:
    return await run_for_reviewer(client, run_id, reviewer)


@router.post(
    "/approvals/{run_id}/decision",
    summary="Approve or reject a pending action, named by its hash",
    description="Sent as the signed-in reviewer (id, roles and tenant from the store). "
    "409 carries the workflow's refusal in plain words, e.g. a hash that is no longer "
    "pending, an expired action or a second approval by the same reviewer. 403 when "
    "the policy asks for the reviewer's passkey (an approval above `passkey_above`): "
    "such a decision is made in the reviewer UI's page; 403 too, before the run is "
    "read, when `expected_reviewer` names someone else than the credential. With the "
    "session cookie, send the session's CSRF token (`GET /api/me`) as X-CSRF-Token.",
    dependencies=[Depends(api_csrf_protect)],
    responses=_errors(401, 403, 404, 409, 415, 422, 503),
)
async def decide(
    request: Request, run_id: str, body: DecisionBody, reviewer: CurrentReviewer
) -> DecisionResult:
    if body.expected_reviewer is not None:
        refuse_another_reviewer(reviewer, body.expected_reviewer)
    # Connected here, not as a dependency: a malformed body is a 422 even when
    # Temporal is down (dependencies are solved before the body is validated).
    client, state = await run_to_decide(request, run_id, reviewer)  # 404: another tenant's
    action = pending_by_hash(state, body.action_hash)
    if not reviewer.may_decide(action):
        raise HTTPException(status.HTTP_403_FORBIDDEN, no_role_message(action))
    try:
        # This API takes no passkey: the reviewer UI's page does.
        result = await decide_as(
            request,
            client,
            reviewer,
            run_id,
            body.action_hash,
            body.verdict,
            body.reason,
            Choice(category=body.category, edits=body.edits, action=action),
        )
    except InvalidDecision as invalid:
        # What was wrong with the decision itself (a missing category, an edit its
        # policy does not allow): nothing was sent.
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(invalid)) from None
    except PasskeyRequired as required:
        raise HTTPException(status.HTTP_403_FORBIDDEN, required.message) from None
    except DecisionNotAccepted as refused:
        raise HTTPException(status.HTTP_409_CONFLICT, refused.message) from None
    return result


def refuse_another_reviewer(reviewer: SignedInReviewer, expected: str) -> None:
    """403 when the decision is meant as someone other than the credential proves: with
    a token, `signoff approve --as alice` sends the decision at once, and bob's token
    must decide nothing (not decide as bob). Before the run is read: nothing is sent."""
    if reviewer_name_key(expected) != reviewer_name_key(reviewer.id):
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            f"This credential is '{reviewer.id}''s, not '{expected}''s. Nothing was decided.",
        )
