"""Money on the store's rows, on both backends: only an action with an exposure (its
tool's policy declares one: the refund, or a team's tool) has an amount in the inbox's
read model, whatever another tool's arguments are named; and a decision whose record
carries a value that is not money is written with no amount, never refused on every
retry (an MCP tool's `amount` arrives as JSON text, quotes included)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import Engine, select

from activities.store.database import use_session
from activities.store.decisions import append_decision
from activities.store.schema import DecisionRow, WaitingAction
from activities.store.waiting_actions import hold_waiting
from tests.clock import clock_now
from workflows.actions import ActionHold, DecisionEvent, DecisionRecord, PendingAction
from workflows.approval_policy import state_hash
from workflows.exposure import ActionExposure
from workflows.tool_gate import NO_STATE

NOW = clock_now()
# The tool's only argument that looks like money, as an MCP server's tool sends it.
VOUCHER = {"customer_id": '"C-9"', "amount": '"15.00"', "currency": '"EUR"'}


def an_action(
    tool: str, arguments: dict[str, str], digest: str, exposure: ActionExposure | None = None
) -> PendingAction:
    return PendingAction(
        action_hash=digest,
        tool_use_id="call-1",
        tool=tool,
        arguments=arguments,
        targets={"tenant_id": "demo", "ticket_id": "T-3107"},
        reason="A voucher for the broken lid.",
        policy_version="test",
        state=NO_STATE,
        state_hash=state_hash(NO_STATE),
        mode="confirm",
        required_approvals=1,
        requested_at=NOW,
        expires_at=NOW + timedelta(hours=1),
        exposure=exposure,
    )


def held_row(store: Engine, action: PendingAction) -> WaitingAction:
    hold_waiting(
        store, ActionHold(run_id="run-v", tenant_id="demo", ticket_id="T-3107", action=action), NOW
    )
    with use_session(store) as session:
        row = session.get(WaitingAction, ("run-v", action.action_hash))
        assert row is not None
        session.expunge(row)
        return row


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("shop__issue_voucher", VOUCHER),
        # A Python tool's `amount` is valid money, and still not an exposure it declared.
        ("gift_card", {"amount": "15.00", "currency": "EUR"}),
    ],
)
def test_a_tool_without_a_declared_exposure_waits_with_no_amount(
    store: Engine, tool: str, arguments: dict[str, str]
) -> None:
    row = held_row(store, an_action(tool, arguments, "a" * 64))
    assert (row.amount_minor, row.currency, row.order_id) == (None, None, "")
    assert PendingAction.model_validate_json(row.action).arguments == arguments


def decided(amount: str | None, currency: str | None, sequence: int) -> DecisionEvent:
    return DecisionEvent(
        run_id="run-v",
        tenant_id="demo",
        ticket_id="T-3107",
        sequence=sequence,
        record=DecisionRecord(
            action_hash="b" * 64,
            kind="rejected",
            reviewer_id="alice",
            at=NOW,
            amount=amount,
            currency=currency,
        ),
    )


def audit_money(store: Engine) -> list[tuple[int | None, str | None]]:
    with use_session(store) as session:
        rows = session.execute(
            select(DecisionRow.amount_minor, DecisionRow.currency)
            .where(DecisionRow.run_id == "run-v")
            .order_by(DecisionRow.seq)
        )
        return [(amount, currency) for amount, currency in rows]


def test_a_record_whose_amount_is_not_money_is_written_without_one(store: Engine) -> None:
    not_money = ['"15.00"', "NaN", "Infinity", "1e400", "0.001", "99999999999", "fifteen"]
    for sequence, amount in enumerate(not_money):
        append_decision(store, decided(amount, '"EUR"', sequence))
    append_decision(store, decided("15.00", '"EUR"', len(not_money)))  # no currency code
    append_decision(store, decided("15.00", "EUR", len(not_money) + 1))
    assert audit_money(store) == [(None, None)] * len(not_money) + [(1500, None), (1500, "EUR")]


def test_the_refund_waits_with_its_exposure(store: Engine) -> None:
    # As the refund's hooks declare it (workflows/refund_hooks.py).
    exposure = ActionExposure(
        amount="15.00", currency="EUR", order_id="C-1042", amount_argument="amount"
    )
    arguments = {"amount": "15.00", "currency": "EUR"}
    row = held_row(store, an_action("refund", arguments, "c" * 64, exposure))
    assert (row.amount_minor, row.currency, row.order_id) == (1500, "EUR", "C-1042")


def test_a_tool_that_declares_its_money_waits_with_it_whatever_its_name(store: Engine) -> None:
    # The team's tool: `exposure = { amount = "value", currency = "EUR" }`, no order.
    exposure = ActionExposure(amount="15.00", currency="EUR", amount_argument="value")
    row = held_row(store, an_action("issue_voucher", {"value": "15"}, "d" * 64, exposure))
    assert (row.amount_minor, row.currency, row.order_id) == (1500, "EUR", "")
