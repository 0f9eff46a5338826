"""Settling a refund whose outcome is unknown: the ledger says, and the answer is kept.

The refund either has a ledger row under its idempotency key or it has not. Settling
records which, under the same lock as a refund of that order (see refunds.py), and a
`not_refunded` settlement makes the key unusable: `execute_refund` refuses it. So the
answer a person reads stays true, even if an attempt of the old activity is still
stuck somewhere and tries to commit later. Settling twice returns the first answer.

A refund made on a payment platform (activities/payments/) is settled the same way,
from what the platform answered when asked by key (`settle_platform_refund`): a refund
found there is mirrored into the ledger under its key, and the answer kept alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from activities.store.database import use_session, write_transaction
from activities.store.refunds import REFUND_ISOLATION_LEVEL, refund_by_key
from activities.store.schema import (
    ID_LENGTH,
    DecisionNonce,
    Order,
    Refund,
    RefundSettlement,
)
from activities.store.text_lists import join_list, split_list

SettlementOutcome = Literal["refunded", "not_refunded"]


@dataclass(frozen=True)
class SettledRefund:
    idempotency_key: str
    outcome: SettlementOutcome
    settled_at: datetime
    refund_id: str | None = None
    refunded_at: datetime | None = None
    approvers: tuple[str, ...] = ()

    @property
    def happened(self) -> bool:
        return self.outcome == "refunded"


def settle_refund(
    engine: Engine,
    *,
    tenant_id: str,
    run_id: str,
    order_id: str | None,
    action_hash: str,
    idempotency_key: str,
) -> SettledRefund:
    """Look the key up in the ledger and record the answer (see the module note)."""
    with write_transaction(engine, REFUND_ISOLATION_LEVEL) as session:
        if order_id is not None:
            _lock_order(session, tenant_id, order_id)
        settled = session.get(RefundSettlement, idempotency_key)
        if settled is None:
            row = refund_by_key(session, idempotency_key)
            settled = _new_settlement(session, row, tenant_id, run_id, action_hash, idempotency_key)
        return _settled(session, settled)


@dataclass(frozen=True)
class PlatformRefund:
    """A refund a payment platform holds under the key: what the settlement mirrors."""

    refund_id: str
    amount_minor: int
    currency: str
    created_at: datetime


def settle_platform_refund(
    engine: Engine,
    *,
    tenant_id: str,
    run_id: str,
    order_id: str,
    action_hash: str,
    idempotency_key: str,
    found: PlatformRefund | None,
) -> SettledRefund:
    """Record what the platform answered for the key (see the module note); a settlement
    already there is the answer, whatever the platform says now."""
    with write_transaction(engine, REFUND_ISOLATION_LEVEL) as session:
        _lock_order(session, tenant_id, order_id)
        settled = session.get(RefundSettlement, idempotency_key)
        if settled is None:
            row = refund_by_key(session, idempotency_key)
            if row is None and found is not None:
                row = _mirror(
                    session, found, tenant_id, order_id, run_id, action_hash, idempotency_key
                )
                session.add(row)
                session.flush()
            settled = _new_settlement(session, row, tenant_id, run_id, action_hash, idempotency_key)
        return _settled(session, settled)


def _lock_order(session: Session, tenant_id: str, order_id: str) -> None:
    """The lock a refund of this order takes: a refund commits before or after."""
    session.scalars(
        select(Order).where(Order.tenant_id == tenant_id, Order.id == order_id).with_for_update()
    ).one_or_none()


def _new_settlement(
    session: Session,
    row: Refund | None,
    tenant_id: str,
    run_id: str,
    action_hash: str,
    idempotency_key: str,
) -> RefundSettlement:
    """The settlement of a key from the refund found under it (or none), added."""
    refunded = row is not None and row.tenant_id == tenant_id
    settled = RefundSettlement(
        idempotency_key=idempotency_key,
        tenant_id=tenant_id,
        run_id=run_id,
        action_hash=action_hash,
        outcome="refunded" if refunded else "not_refunded",
        refund_id=row.id if refunded and row is not None else None,
        settled_at=datetime.now(UTC),
    )
    session.add(settled)
    return settled


def _mirror(
    session: Session,
    found: PlatformRefund,
    tenant_id: str,
    order_id: str,
    run_id: str,
    action_hash: str,
    key: str,
) -> Refund:
    # Who authorized it: the reviewers whose approvals the refund's claim spent.
    approvers = session.scalars(
        select(DecisionNonce.reviewer_id).where(DecisionNonce.effect_key == key)
    )
    return Refund(
        id=found.refund_id[:ID_LENGTH],
        tenant_id=tenant_id,
        order_id=order_id,
        amount_minor=found.amount_minor,
        currency=found.currency,
        idempotency_key=key,
        run_id=run_id,
        action_hash=action_hash,
        approvers=join_list(list(dict.fromkeys(approvers))),
        reason="",
        created_at=found.created_at.astimezone(UTC),
    )


def settlement_of(source: Session | Engine, idempotency_key: str) -> RefundSettlement | None:
    with use_session(source) as session:
        return session.get(RefundSettlement, idempotency_key)


def _settled(session: Session, settled: RefundSettlement) -> SettledRefund:
    row = refund_by_key(session, settled.idempotency_key) if settled.refund_id else None
    outcome: SettlementOutcome = "refunded" if settled.outcome == "refunded" else "not_refunded"
    return SettledRefund(
        idempotency_key=settled.idempotency_key,
        outcome=outcome,
        settled_at=settled.settled_at,
        refund_id=settled.refund_id,
        refunded_at=row.created_at if row is not None else None,
        approvers=tuple(split_list(row.approvers)) if row is not None else (),
    )
