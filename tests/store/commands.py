"""Refund commands as the workflow builds them, with the state hash read beforehand."""

from __future__ import annotations

from sqlalchemy import Engine

from activities.store.refunds import read_action_state
from workflows.actions import RefundCommand
from workflows.approval_policy import state_hash

ACTION_HASH = "a" * 64


def refund_command(
    engine: Engine,
    *,
    key: str,
    amount_minor: int,
    ticket_id: str = "T-2210",
    order_id: str = "C-2210",
    currency: str = "EUR",
    tenant_id: str = "demo",
    action_hash: str = ACTION_HASH,
    expected_state_hash: str | None = None,
) -> RefundCommand:
    if expected_state_hash is None:
        expected_state_hash = state_hash(read_action_state(engine, tenant_id, ticket_id))
    return RefundCommand(
        run_id="run-1",
        tenant_id=tenant_id,
        ticket_id=ticket_id,
        order_id=order_id,
        amount_minor=amount_minor,
        currency=currency,
        idempotency_key=key,
        action_hash=action_hash,
        expected_state_hash=expected_state_hash,
        approvers=["alice"],
    )
