"""Reads the pages share: a run seen by one reviewer, and the store rows beside it.

Which runs a reviewer may see is the service's to say (signoff/service/run_access.py):
another tenant's run is "not found" here, as a run that does not exist.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

from fastapi import HTTPException, Request, status

from approvals_ui.deps import TemporalUnavailable, get_temporal, not_found
from approvals_ui.words import N_
from signoff.service.decisions import Decider, DecisionUnavailable
from signoff.service.paging import Page
from signoff.service.payment_orders import (
    PaymentConnectors,
    PaymentLinkRefused,
    RefundLine,
    on_ticket,
    refund_lines,
)
from signoff.service.pending import PendingItem, RunNotFound
from signoff.service.reviewer_access import SignedInReviewer
from signoff.service.run_access import RunUnanswered, run_for_tenant
from signoff.service.run_control import Runs
from signoff.service.shop import get_ticket
from signoff.service.store import Store
from signoff.service.ticket_excerpts import TicketWords, ticket_words
from signoff.service.waiting_listing import PendingPage, pending_page_of
from workflows.actions import REFUND_APPROVER_ROLE, PendingAction
from workflows.contracts import RunState

NO_WORKER = N_(
    "The run did not answer: the part of signoff that runs the agents seems to be stopped. "
    "Ask whoever runs signoff to start it again, then reload this page."
)


@dataclass(frozen=True)
class InboxRow:
    item: PendingItem
    ticket_excerpt: str
    customer_name: str | None = None  # the ticket's, as the decision page names them


@dataclass(frozen=True)
class RunContext:
    state: RunState
    ticket_text: str | None
    customer_name: str | None
    ticket_created_at: datetime | None
    prior_refunds: list[RefundLine]
    # Why the payment platform's refunds could not be read (then the page says so).
    refunds_unavailable: str | None = None


async def run_for_reviewer(client: Runs, run_id: str, reviewer: SignedInReviewer) -> RunState:
    try:
        return await run_for_tenant(client, run_id, reviewer.tenant_id)
    except RunNotFound:
        raise not_found() from None
    except RunUnanswered:
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, NO_WORKER) from None


async def run_to_decide(
    request: Request, run_id: str, reviewer: SignedInReviewer
) -> tuple[Runs, RunState]:
    """The client and the run a decision goes to. When Temporal or the run's worker does
    not answer, every face says the same sentence (DecisionUnavailable: 503, exit 1)."""
    try:
        client = await get_temporal(request)
        return client, await run_for_reviewer(client, run_id, reviewer)
    except TemporalUnavailable:
        raise DecisionUnavailable() from None
    except HTTPException as error:
        if error.status_code == status.HTTP_503_SERVICE_UNAVAILABLE:
            raise DecisionUnavailable() from None
        raise


def _store_context(engine: Store, state: RunState, payments: PaymentConnectors) -> RunContext:
    ticket = get_ticket(engine, state.tenant_id, state.ticket_id)
    # The orders the waiting actions' exposures name (no target is read by its name),
    # and the ticket's.
    order_ids = {
        action.exposure.order_id for action in state.pending_actions if action.exposure is not None
    }
    if ticket is not None and ticket.order_id:
        order_ids.add(ticket.order_id)
    refunds: list[RefundLine] = []
    unavailable = None
    for order_id in sorted(order for order in order_ids if order):
        try:
            refunds += refund_lines(engine, payments, state.tenant_id, order_id)
        except PaymentLinkRefused as error:
            unavailable = str(error)
    return RunContext(
        state=state,
        ticket_text=ticket.text if ticket else None,
        customer_name=ticket.customer_name if ticket else None,
        ticket_created_at=ticket.created_at if ticket else None,
        prior_refunds=on_ticket(engine, state.tenant_id, state.ticket_id, refunds),
        refunds_unavailable=unavailable,
    )


async def run_context(
    engine: Store, state: RunState, payments: PaymentConnectors | None = None
) -> RunContext:
    """The run with its ticket and the prior refunds of its order (the payment platform's,
    read now, for a tenant that refunds through one)."""
    return await asyncio.to_thread(
        _store_context, engine, state, payments or PaymentConnectors.ledger_only()
    )


def inbox_rows(
    items: list[PendingItem], words: dict[tuple[str, str], TicketWords]
) -> list[InboxRow]:
    """Each item with its ticket's words (an empty excerpt for a ticket no longer kept)."""
    rows = []
    for item in items:
        found = words.get((item.tenant_id, item.ticket_id))
        rows.append(
            InboxRow(item, found.text if found else "", found.customer_name if found else None)
        )
    return rows


def _excerpts(engine: Store, items: list[PendingItem]) -> list[InboxRow]:
    """Each item with its ticket's words: one query per tenant, not one per ticket."""
    return inbox_rows(items, ticket_words(engine, items))


async def inbox_page(
    engine: Store, tenant_id: str, limit: int, after: str | None
) -> tuple[Page[InboxRow], PendingPage]:
    """One page of the tenant's pending actions, soonest expiry first, from the store's
    read model, with its tickets' excerpts read for this page alone.

    Raises InvalidCursor for an `after` the listing did not give out.
    """
    listed = await pending_page_of(engine, tenant_id, limit, after)
    page = listed.page
    rows = await asyncio.to_thread(_excerpts, engine, page.items)
    return Page(total=page.total, items=rows, next=page.next, first=page.first), listed


def decider_of(reviewer: SignedInReviewer) -> Decider:
    """The signed-in reviewer as a decision names them: identity, tenant and roles as the
    store holds them now, never as a form says."""
    return Decider(reviewer.id, reviewer.tenant_id, reviewer.roles)


def pending_by_hash(state: RunState, action_hash: str) -> PendingAction | None:
    """The run's waiting action with this hash, if any (the run judges the rest)."""
    return next((a for a in state.pending_actions if a.action_hash == action_hash), None)


def no_role_message(action: PendingAction | None) -> str:
    """Why a reviewer without the action's approver role cannot decide on it."""
    if action is None or action.tool == "refund":
        return f"You do not have the {REFUND_APPROVER_ROLE} role, so you cannot decide on refunds."
    roles = " or ".join(action.approver_roles)
    return f"You do not have the {roles} role, so you cannot decide on {action.tool}."
