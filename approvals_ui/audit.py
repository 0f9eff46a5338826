"""The tenant's decision trail: every approved, rejected, expired, voided, denied and
cancelled action, with who, when, why, and the amount and order where they are known.

Design note. The runs are the source: Temporal visibility lists the tenant's AgentRun
workflows (newest first, at most `MAX_AUDIT_RUNS`) with the memo each publishes, which
holds its decision trail; a run from before it did is read through its `state` query,
and one that no worker answers for is counted, not guessed at. A decision record
carries the order, amount and currency of its action. Records written before those
fields existed name the action by hash only; for them the amount and order come from
beside it: the ledger row of an executed refund (the same action hash), or the action
itself while it still waits (a first approval under four eyes); otherwise the order is
the ticket's own (a refund can target no other) and the amount is not recorded.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import get_args
from urllib.parse import urlencode

from sqlalchemy import Engine, select
from temporalio.client import Client

from activities.store import Refund, get_tickets, use_session
from signoff.service.run_listing import RunSummary, read_runs
from workflows.actions import DecisionKind
from workflows.contract_base import IDENTIFIER_PATTERN
from workflows.contracts import TENANT_ATTRIBUTE, WORKFLOW_NAME

VERDICTS: tuple[str, ...] = get_args(DecisionKind)
MAX_AUDIT_RUNS = 500


class InvalidFilter(ValueError):
    """A filter a person typed that we cannot use; the message says what to type."""


@dataclass(frozen=True)
class AuditFilter:
    reviewer: str | None = None
    verdict: str | None = None
    since: date | None = None
    until: date | None = None

    def matches(self, row: AuditRow) -> bool:
        day = row.at.date()
        return (
            (self.reviewer is None or row.reviewer_id == self.reviewer)
            and (self.verdict is None or row.kind == self.verdict)
            and (self.since is None or day >= self.since)
            and (self.until is None or day <= self.until)
        )

    def query(self, **extra: object) -> str:
        """The filter as a query string, for page links and the CSV link."""
        params = {
            "reviewer": self.reviewer,
            "verdict": self.verdict,
            "from": self.since.isoformat() if self.since else None,
            "to": self.until.isoformat() if self.until else None,
            **extra,
        }
        return urlencode({key: value for key, value in params.items() if value})


def parse_filter(
    reviewer: str | None, verdict: str | None, since: str | None, until: str | None
) -> AuditFilter:
    """Empty fields mean "any": a GET form submits every field, filled or not."""
    reviewer = (reviewer or "").strip() or None
    verdict = (verdict or "").strip() or None
    if reviewer is not None and not re.match(IDENTIFIER_PATTERN, reviewer):
        raise InvalidFilter("The reviewer filter is not a reviewer name.")
    if verdict is not None and verdict not in VERDICTS:
        raise InvalidFilter(f"The verdict filter must be one of: {', '.join(VERDICTS)}.")
    start, end = _date("from", since), _date("to", until)
    if start and end and start > end:
        raise InvalidFilter("The 'from' date is after the 'to' date.")
    return AuditFilter(reviewer, verdict, start, end)


def _date(name: str, text: str | None) -> date | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InvalidFilter(f"The '{name}' date must look like 2026-01-31.") from None


@dataclass(frozen=True)
class AuditRow:
    at: datetime
    kind: str
    reviewer_id: str | None
    run_id: str
    action_hash: str
    reason: str
    order_id: str | None
    amount: Decimal | None
    currency: str | None


@dataclass(frozen=True)
class AuditLog:
    rows: list[AuditRow]
    runs_read: int
    runs_unanswered: int


def tenant_runs_query(tenant_id: str) -> str:
    """`tenant_id` comes from the store and matches IDENTIFIER_PATTERN: no quote in it."""
    return f"WorkflowType = '{WORKFLOW_NAME}' AND {TENANT_ATTRIBUTE} = '{tenant_id}'"


async def audit_log(client: Client, engine: Engine, tenant_id: str) -> AuditLog:
    """Every decision of the tenant's recent runs, newest first. RPCError propagates."""
    listing = await read_runs(
        client, tenant_runs_query(tenant_id), tenant_id=tenant_id, limit=MAX_AUDIT_RUNS
    )
    rows = await asyncio.to_thread(_rows, engine, tenant_id, listing.runs)
    rows.sort(key=lambda row: (row.at, row.run_id), reverse=True)
    return AuditLog(rows, listing.listed, listing.unanswered)


def _rows(engine: Engine, tenant_id: str, states: list[RunSummary]) -> list[AuditRow]:
    # Only records from before they carried their amount need the ledger and the tickets.
    older = [state for state in states if any(r.amount is None for r in state.decisions)]
    run_ids = [state.run_id for state in older]
    refunds: dict[str, Refund] = {}
    ticket_orders: dict[str, str | None] = {}
    if older:
        with use_session(engine) as session:
            refunds = {
                refund.action_hash: refund
                for refund in session.scalars(
                    select(Refund).where(Refund.tenant_id == tenant_id, Refund.run_id.in_(run_ids))
                )
            }
            tickets = get_tickets(session, tenant_id, {state.ticket_id for state in older})
            ticket_orders = {ticket_id: ticket.order_id for ticket_id, ticket in tickets.items()}
    rows = []
    for state in states:
        waiting = {action.action_hash: action for action in state.pending_actions}
        for record in state.decisions:
            refund = refunds.get(record.action_hash)
            action = waiting.get(record.action_hash)
            order_id, amount, currency = ticket_orders.get(state.ticket_id), None, None
            if record.amount is not None:
                order_id, amount, currency = (
                    record.order_id,
                    Decimal(record.amount),
                    record.currency,
                )
            elif refund is not None:
                order_id, amount, currency = refund.order_id, refund.amount, refund.currency
            elif action is not None:
                order_id = action.targets.get("order_id", order_id)
                amount = Decimal(action.arguments.get("amount", "0"))
                currency = action.arguments.get("currency")
            rows.append(
                AuditRow(
                    at=record.at,
                    kind=record.kind,
                    reviewer_id=record.reviewer_id,
                    run_id=state.run_id,
                    action_hash=record.action_hash,
                    reason=record.reason,
                    order_id=order_id,
                    amount=amount,
                    currency=currency,
                )
            )
    return rows
