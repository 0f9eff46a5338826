"""What a refund decision is judged on, as the read_action_state activity reads it."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, update
from sqlalchemy.orm import Session

from activities.store.errors import UnknownTenant
from activities.store.refunds import execute_refund, read_action_state
from activities.store.schema import Order, Tenant
from tests.store.commands import refund_command
from workflows.actions import ActionState
from workflows.approval_policy import state_hash


def test_state_of_a_ticket_with_an_order(store: Engine) -> None:
    assert read_action_state(store, "demo", "T-3107") == ActionState(
        order_id="C-3107",
        currency="EUR",
        paid_minor=31000,
        refunded_minor=0,
        order_status="shipped",
        review_threshold_minor=20000,
    )


def test_refunded_total_is_the_sum_of_the_ledger(store: Engine) -> None:
    for index, amount in enumerate([1000, 250]):
        execute_refund(store, refund_command(store, key=f"k-{index}", amount_minor=amount))
    state = read_action_state(store, "demo", "T-2210")
    assert (state.paid_minor, state.refunded_minor, state.refundable_minor) == (4500, 1250, 3250)


@pytest.mark.parametrize("ticket_id", ["T-9999", "T-NOPE"])
def test_state_without_an_order(store: Engine, ticket_id: str) -> None:
    state = read_action_state(store, "demo", ticket_id)
    assert (state.order_id, state.currency, state.order_status) == (None, None, None)
    assert (state.paid_minor, state.refunded_minor) == (0, 0)
    assert state.review_threshold_minor == 20000


def test_another_tenants_ticket_has_no_order_here(store: Engine) -> None:
    assert read_action_state(store, "demo", "T-7001").order_id is None


def test_unknown_tenant(store: Engine) -> None:
    with pytest.raises(UnknownTenant):
        read_action_state(store, "nobody", "T-2210")


def test_the_hash_follows_status_and_threshold(store: Engine) -> None:
    before = state_hash(read_action_state(store, "demo", "T-2210"))
    with Session(store) as session, session.begin():
        session.execute(update(Order).where(Order.id == "C-2210").values(status="returned"))
    after_status = state_hash(read_action_state(store, "demo", "T-2210"))
    with Session(store) as session, session.begin():
        session.execute(
            update(Tenant).where(Tenant.id == "demo").values(refund_review_threshold_minor=1)
        )
    after_threshold = state_hash(read_action_state(store, "demo", "T-2210"))
    assert len({before, after_status, after_threshold}) == 3
