"""The exposure hold: the `ActionHold` a run sends (the action alone) reads as the full
`PendingRefundHold` the store writes, and the activity's payload decodes to what was
sent (workflows/action_hold.py)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from signoff.config.data_converter import data_converter
from tests.clock import clock_now
from workflows.action_hold import full_hold
from workflows.actions import ActionHold, ActionState, PendingAction, PendingRefundHold
from workflows.approval_policy import CENTS, state_hash
from workflows.exposure import ActionExposure

NOW = clock_now()


def an_action(amount: str = "310.00", supersedes: str | None = None) -> PendingAction:
    state = ActionState(
        order_id="C-3107", currency="EUR", paid_minor=31000, review_threshold_minor=20000
    )
    return PendingAction(
        action_hash="a" * 64,
        tool_use_id="call-1",
        tool="refund",
        arguments={"amount": amount, "currency": "EUR"},
        targets={"tenant_id": "demo", "order_id": "C-3107"},
        reason="The espresso machine leaks.",
        policy_version="test",
        state=state,
        state_hash=state_hash(state),
        mode="review",
        required_approvals=2,
        requested_at=NOW,
        expires_at=NOW + timedelta(hours=24),
        supersedes=supersedes,
        # As the refund's hooks declare it (workflows/refund_hooks.py).
        exposure=ActionExposure(
            amount=str(Decimal(amount).quantize(CENTS)),
            currency="EUR",
            order_id="C-3107",
            amount_argument="amount",
        ),
    )


def compact_hold(action: PendingAction) -> ActionHold:
    return ActionHold(run_id="run-demo-1", tenant_id="demo", ticket_id="T-3107", action=action)


@pytest.mark.parametrize(("amount", "minor"), [("310.00", 31000), ("0.05", 5), ("89.9", 8990)])
def test_a_compact_hold_reads_as_the_full_hold_of_its_action(amount: str, minor: int) -> None:
    action = an_action(amount, supersedes="b" * 64)

    full = full_hold(compact_hold(action))

    assert full == PendingRefundHold(
        run_id="run-demo-1",
        tenant_id="demo",
        order_id="C-3107",
        action_hash=action.action_hash,
        amount_minor=minor,
        expires_at=action.expires_at,
        supersedes="b" * 64,
        ticket_id="T-3107",
        action=action,
    )


def test_the_activity_payload_decodes_to_the_hold_sent() -> None:
    sent = compact_hold(an_action())
    converter = data_converter.payload_converter

    [received] = converter.from_payloads(converter.to_payloads([sent]), [ActionHold])

    assert type(received) is ActionHold and received == sent


def test_a_compact_hold_carries_nothing_twice() -> None:
    converter = data_converter.payload_converter
    [payload] = converter.to_payloads([compact_hold(an_action())])
    [full] = converter.to_payloads([full_hold(compact_hold(an_action()))])

    assert b'"order_id":"C-3107"' not in payload.data.split(b'"action"')[0]
    assert len(payload.data) < len(full.data) - 150
