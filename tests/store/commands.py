"""Refund commands as the workflow builds them, with the state hash read beforehand.

The action a command carries is built from the same fields, so that the ledger's own
rules (tests/store) see a plausible command; these commands carry no signed approval
and are for the ledger's rules alone (`execute_refund`). What the `execute_refund`
activity demands of a command, its proof, is tested in tests/store/test_effect_proofs.py.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from activities.store.refunds import read_action_state
from workflows.actions import PendingAction, RefundCommand
from workflows.approval_policy import money, state_hash

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
    state = read_action_state(engine, tenant_id, ticket_id)
    if expected_state_hash is None:
        expected_state_hash = state_hash(state)
    now = datetime.now(UTC)
    action = PendingAction(
        action_hash=action_hash,
        tool_use_id="call-1",
        tool="refund",
        arguments={"amount": money(amount_minor), "currency": currency},
        targets={"tenant_id": tenant_id, "order_id": order_id},
        reason="",
        policy_version="test",
        state=state,
        state_hash=expected_state_hash,
        mode="confirm",
        required_approvals=1,
        requested_at=now,
        expires_at=now + timedelta(hours=24),
    )
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
        action=action,
        proofs=[],
    )
