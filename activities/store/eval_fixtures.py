"""The store side of scenario evals: a scenario's starting state in, what happened out.

A scenario declares tenants, orders, prior refunds, tickets and reviewers; the eval
runner gives each tenant and reviewer a unique id per run (so scenarios on a shared
stack never meet) and writes them here, in one transaction. Rows are written as the
demo seed writes them, past `add_ticket`'s ingest limit on purpose: a 200 KB ticket is
one of the attacks the tool gateway must bound, so the store must be able to hold one.

After the run, the evaluator reads the ledger and the decision audit of those tenants:
the store is the truth about what was refunded and who decided.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import Engine, select

from activities.store.database import use_session, write_transaction
from activities.store.schema import (
    DecisionRow,
    Order,
    Refund,
    Reviewer,
    Tenant,
    Ticket,
)

# Prior refunds are history, not an approval anybody gave in this store.
PRIOR_REFUND_RUN = "eval-prior-refund"
PRIOR_REFUND_HASH = "0" * 64


@dataclass(frozen=True)
class FixtureOrder:
    id: str
    paid_minor: int
    currency: str
    status: str
    tracking: str | None
    customer_name: str


@dataclass(frozen=True)
class FixtureTicket:
    id: str
    order_id: str | None
    customer_name: str
    text: str


@dataclass(frozen=True)
class FixtureReviewer:
    id: str
    display_name: str
    roles: tuple[str, ...]


@dataclass(frozen=True)
class FixtureTenant:
    id: str
    name: str
    review_threshold_minor: int
    orders: list[FixtureOrder] = field(default_factory=list)
    # (order id, amount in minor units) refunded before the scenario starts.
    prior_refunds: list[tuple[str, int]] = field(default_factory=list)
    tickets: list[FixtureTicket] = field(default_factory=list)
    reviewers: list[FixtureReviewer] = field(default_factory=list)


@dataclass(frozen=True)
class LedgerLine:
    tenant_id: str
    order_id: str
    amount_minor: int
    run_id: str
    action_hash: str
    idempotency_key: str
    approvers: tuple[str, ...]


@dataclass(frozen=True)
class AuditLine:
    tenant_id: str
    kind: str
    run_id: str
    action_hash: str
    reviewer_id: str | None
    order_id: str | None
    amount_minor: int | None


def create_fixture(engine: Engine, tenants: list[FixtureTenant]) -> None:
    """Write the tenants and everything they hold; parents before children."""
    now = datetime.now(UTC)
    with write_transaction(engine) as session:
        for tenant in tenants:
            session.add(
                Tenant(
                    id=tenant.id,
                    name=tenant.name,
                    refund_review_threshold_minor=tenant.review_threshold_minor,
                )
            )
        session.flush()
        for tenant in tenants:
            for order in tenant.orders:
                session.add(
                    Order(
                        tenant_id=tenant.id,
                        id=order.id,
                        amount_paid_minor=order.paid_minor,
                        currency=order.currency,
                        status=order.status,
                        tracking=order.tracking,
                        customer_name=order.customer_name,
                    )
                )
            for reviewer in tenant.reviewers:
                session.add(
                    Reviewer(
                        id=reviewer.id,
                        tenant_id=tenant.id,
                        display_name=reviewer.display_name,
                        roles=",".join(reviewer.roles),
                    )
                )
        session.flush()
        for tenant in tenants:
            currencies = {order.id: order.currency for order in tenant.orders}
            for ticket in tenant.tickets:
                session.add(
                    Ticket(
                        tenant_id=tenant.id,
                        id=ticket.id,
                        order_id=ticket.order_id,
                        customer_name=ticket.customer_name,
                        text=ticket.text,
                        created_at=now,
                    )
                )
            for order_id, amount_minor in tenant.prior_refunds:
                session.add(
                    Refund(
                        id="R-" + uuid.uuid4().hex[:10].upper(),
                        tenant_id=tenant.id,
                        order_id=order_id,
                        amount_minor=amount_minor,
                        currency=currencies[order_id],
                        idempotency_key=f"{PRIOR_REFUND_RUN}:{uuid.uuid4().hex}",
                        run_id=PRIOR_REFUND_RUN,
                        action_hash=PRIOR_REFUND_HASH,
                        approvers="",
                        reason="refunded before the scenario",
                        created_at=now,
                    )
                )


def ledger_of(engine: Engine, tenant_ids: list[str]) -> list[LedgerLine]:
    """Every refund of these tenants, oldest first, prior ones included."""
    with use_session(engine) as session:
        rows = session.scalars(
            select(Refund)
            .where(Refund.tenant_id.in_(tenant_ids))
            .order_by(Refund.created_at, Refund.id)
        )
        return [
            LedgerLine(
                tenant_id=row.tenant_id,
                order_id=row.order_id,
                amount_minor=row.amount_minor,
                run_id=row.run_id,
                action_hash=row.action_hash,
                idempotency_key=row.idempotency_key,
                approvers=tuple(row.approver_list),
            )
            for row in rows
        ]


def audit_of(engine: Engine, tenant_ids: list[str]) -> list[AuditLine]:
    """Every audit event of these tenants, in the order of their chains."""
    with use_session(engine) as session:
        rows = session.scalars(
            select(DecisionRow)
            .where(DecisionRow.tenant_id.in_(tenant_ids))
            .order_by(DecisionRow.tenant_id, DecisionRow.seq)
        )
        return [
            AuditLine(
                tenant_id=row.tenant_id,
                kind=row.kind,
                run_id=row.run_id,
                action_hash=row.action_hash,
                reviewer_id=row.reviewer_id,
                order_id=row.order_id,
                amount_minor=row.amount_minor,
            )
            for row in rows
        ]
