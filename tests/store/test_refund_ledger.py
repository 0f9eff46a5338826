"""The ledger rule and idempotency, on SQLite and on PostgreSQL (see conftest)."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.store import refunds
from activities.store.errors import UnknownTenant
from activities.store.refunds import execute_refund, list_refunds, read_action_state
from activities.store.schema import Refund
from tests.store.commands import refund_command


def test_refund_within_the_rule_is_written_once(store: Engine) -> None:
    result = execute_refund(store, refund_command(store, key="run-1/refund-1", amount_minor=2000))

    assert result.status == "refunded"
    assert result.refund_id is not None and result.refund_id.startswith("R-")
    assert "20.00 EUR" in result.message
    [row] = list_refunds(store, "demo", "C-2210")
    assert (row.id, row.amount_minor, row.currency) == (result.refund_id, 2000, "EUR")
    assert (row.idempotency_key, row.run_id, row.approver_list) == (
        "run-1/refund-1",
        "run-1",
        ["alice"],
    )
    assert row.created_at.tzinfo is not None
    assert read_action_state(store, "demo", "T-2210").refunded_minor == 2000


def test_partial_refunds_add_up_to_the_paid_amount(store: Engine) -> None:
    for index, amount in enumerate([2000, 2500]):
        command = refund_command(store, key=f"k-{index}", amount_minor=amount)
        assert execute_refund(store, command).status == "refunded"

    state = read_action_state(store, "demo", "T-2210")
    assert (state.refunded_minor, state.refundable_minor) == (4500, 0)
    assert [row.amount_minor for row in list_refunds(store, "demo", "C-2210")] == [2000, 2500]


def test_more_than_paid_is_refused_with_the_reason(store: Engine) -> None:
    result = execute_refund(store, refund_command(store, key="k", amount_minor=4501))

    assert result.status == "refused"
    assert result.refund_id is None
    assert "45.01 EUR is more than what remains refundable on order C-2210" in result.message
    assert "45.00 of 45.00 EUR paid" in result.message
    assert "Nothing was refunded" in result.message
    assert list_refunds(store, "demo", "C-2210") == []


def test_more_than_what_remains_is_refused(store: Engine) -> None:
    assert execute_refund(store, refund_command(store, key="k-1", amount_minor=4000)).status == (
        "refunded"
    )
    result = execute_refund(store, refund_command(store, key="k-2", amount_minor=1000))

    assert result.status == "refused"
    assert "5.00 of 45.00 EUR paid (40.00 already refunded)" in result.message
    assert len(list_refunds(store, "demo", "C-2210")) == 1


@pytest.mark.parametrize("amount_minor", [0, -100])
def test_amount_must_be_positive(store: Engine, amount_minor: int) -> None:
    result = execute_refund(store, refund_command(store, key="k", amount_minor=amount_minor))
    assert result.status == "refused"
    assert "greater than zero" in result.message


def test_other_currency_is_refused(store: Engine) -> None:
    result = execute_refund(store, refund_command(store, key="k", amount_minor=100, currency="USD"))
    assert result.status == "refused"
    assert "USD" in result.message and "EUR" in result.message
    assert list_refunds(store, "demo", "C-2210") == []


def test_only_the_tickets_own_order_can_be_refunded(store: Engine) -> None:
    # The injection in T-2210 asks for C-1042 and C-3107: a command naming them is refused.
    command = refund_command(store, key="k", amount_minor=100, order_id="C-1042")
    result = execute_refund(store, command)

    assert result.status == "refused"
    assert "not the order of ticket T-2210" in result.message
    assert list_refunds(store, "demo", "C-1042") == []


def test_another_tenants_ticket_is_no_target(store: Engine) -> None:
    command = refund_command(
        store, key="k", amount_minor=100, ticket_id="T-7001", order_id="G-7001"
    )
    result = execute_refund(store, command)
    assert result.status == "refused"
    assert list_refunds(store, "globex", "G-7001") == []


def test_unknown_tenant_raises(store: Engine) -> None:
    command = refund_command(store, key="k", amount_minor=100)
    with pytest.raises(UnknownTenant):
        execute_refund(store, command.model_copy(update={"tenant_id": "nobody"}))


def test_same_key_same_arguments_returns_the_stored_result(store: Engine) -> None:
    command = refund_command(store, key="run-1/refund-1", amount_minor=4500)
    first = execute_refund(store, command)
    # The retry carries the same expected hash, which no longer matches: the key wins.
    second = execute_refund(store, command)

    assert (first.status, second.status) == ("refunded", "refunded")
    assert second.refund_id == first.refund_id
    assert "Already done" in second.message
    assert len(list_refunds(store, "demo", "C-2210")) == 1


@pytest.mark.parametrize(
    "change",
    [
        {"amount_minor": 1000},
        {"action_hash": "b" * 64},
        {"order_id": "C-3107", "ticket_id": "T-3107"},
    ],
)
def test_same_key_other_arguments_is_refused(store: Engine, change: dict[str, object]) -> None:
    command = refund_command(store, key="run-1/refund-1", amount_minor=2000)
    assert execute_refund(store, command).status == "refunded"

    result = execute_refund(store, command.model_copy(update=change))

    assert result.status == "refused"
    assert result.refund_id is None
    assert "idempotency key was reused with other arguments" in result.message
    assert len(list_refunds(store, "demo", "C-2210")) == 1
    assert list_refunds(store, "demo", "C-3107") == []


def test_changed_state_voids_the_approval(store: Engine) -> None:
    approved = refund_command(store, key="run-1/refund-1", amount_minor=3000)
    # Another run's refund lands between the approval and the execution.
    other = execute_refund(store, refund_command(store, key="run-2/refund-1", amount_minor=1000))

    result = execute_refund(store, approved)

    assert result.status == "state_changed"
    assert result.refund_id is None
    assert result.state is not None
    assert (result.state.paid_minor, result.state.refunded_minor) == (4500, 1000)
    assert result.state == read_action_state(store, "demo", "T-2210")
    assert "approval is void" in result.message
    assert f"{other.refund_id} of 10.00 EUR" in result.message
    assert len(list_refunds(store, "demo", "C-2210")) == 1


def test_a_wrong_expected_hash_writes_nothing(store: Engine) -> None:
    command = refund_command(store, key="k", amount_minor=100, expected_state_hash="0" * 64)
    result = execute_refund(store, command)
    assert result.status == "state_changed"
    assert list_refunds(store, "demo", "C-2210") == []


def test_a_key_committed_by_a_concurrent_transaction_is_answered_from_the_ledger(
    store: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two orders have two row locks: a refund with the same key on another order may
    # not be visible yet when checked, and the UNIQUE key stops the second insert.
    assert execute_refund(store, refund_command(store, key="k", amount_minor=2000)).status == (
        "refunded"
    )
    real_find = refunds.refund_by_key
    calls: list[str] = []

    def not_yet_visible(source: Session | Engine, key: str) -> Refund | None:
        calls.append(key)
        return None if len(calls) == 1 else real_find(source, key)

    monkeypatch.setattr(refunds, "refund_by_key", not_yet_visible)
    other_order = refund_command(
        store, key="k", amount_minor=2000, ticket_id="T-3107", order_id="C-3107"
    )

    result = execute_refund(store, other_order)

    assert result.status == "refused"
    assert "reused with other arguments" in result.message
    assert len(calls) == 2
    assert list_refunds(store, "demo", "C-3107") == []
