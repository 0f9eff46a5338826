"""The ledger re-reads every approver in the refund's transaction, on both backends:
one who no longer counts, or too few for the order's total, and nothing is refunded."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from activities.store.database import write_transaction
from activities.store.refunds import execute_refund, list_refunds, read_action_state
from activities.store.schema import Reviewer
from tests.store.commands import refund_command
from workflows.actions import RefundCommand


def change_reviewer(store: Engine, reviewer_id: str, **values: object) -> None:
    with write_transaction(store) as session:
        reviewer = session.get(Reviewer, reviewer_id)
        assert reviewer is not None
        for name, value in values.items():
            setattr(reviewer, name, value)


def command(
    store: Engine, *approvers: str, amount_minor: int = 2000, **more: object
) -> RefundCommand:
    ticket, order = ("T-3107", "C-3107") if amount_minor > 20_000 else ("T-2210", "C-2210")
    base = refund_command(
        store, key="run-1:refund", amount_minor=amount_minor, ticket_id=ticket, order_id=order
    )
    return base.model_copy(update={"approvers": list(approvers), **more})


@pytest.mark.parametrize(
    ("change", "approver", "actor", "why"),
    [
        ({"active": False}, "alice", None, "reviewer 'alice' has been disabled"),
        ({"roles": ""}, "alice", None, "reviewer 'alice' no longer holds the refund_approver role"),
        ({"tenant_id": "globex"}, "alice", None, "reviewer 'alice' no longer belongs to tenant"),
        ({}, "zed", None, "reviewer 'zed' no longer exists"),
        ({}, "carol", None, "reviewer 'carol' no longer belongs to tenant 'demo'"),
        ({}, "dave", None, "reviewer 'dave' no longer holds the refund_approver role"),
        ({}, "alice", "alice", "reviewer 'alice' asked for this run and cannot approve it"),
        # The actor under another spelling is the same person (person_key).
        ({}, "alice", "ALICE", "reviewer 'alice' asked for this run and cannot approve it"),
    ],
)
def test_an_approver_who_no_longer_counts_voids_the_approval(
    store: Engine, change: dict[str, object], approver: str, actor: str | None, why: str
) -> None:
    if change:
        change_reviewer(store, approver, **change)
    result = execute_refund(store, command(store, approver, actor_id=actor))

    assert result.status == "approver_invalid"
    assert result.message.startswith(f"An approval no longer counts: {why}")
    assert result.message.endswith("Nothing was refunded.")
    assert result.state == read_action_state(store, "demo", "T-2210")
    assert list_refunds(store, "demo", "C-2210") == []


def test_one_approver_of_two_that_no_longer_counts_is_enough_to_void(store: Engine) -> None:
    change_reviewer(store, "alice", active=False)
    result = execute_refund(store, command(store, "alice", "bob", amount_minor=31_000))

    assert result.status == "approver_invalid"
    assert "reviewer 'alice' has been disabled" in result.message
    assert "bob" not in result.message
    assert list_refunds(store, "demo", "C-3107") == []


def test_above_the_threshold_one_signature_is_too_few(store: Engine) -> None:
    alone = execute_refund(store, command(store, "alice", amount_minor=31_000))
    assert alone.status == "approver_invalid"
    assert alone.message.startswith(
        "Too few approvals: order C-3107 would have 310.00 EUR refunded, above the threshold "
        "of 200.00, which needs 2 different reviewers; 1 approved."
    )
    twice = execute_refund(store, command(store, "alice", "alice", amount_minor=31_000))
    assert twice.status == "approver_invalid"  # the same reviewer counts once
    both = execute_refund(store, command(store, "alice", "bob", amount_minor=31_000))
    assert both.status == "refunded"


def test_a_refund_already_made_stays_made_when_its_approver_is_disabled(store: Engine) -> None:
    first = execute_refund(store, command(store, "alice"))
    change_reviewer(store, "alice", active=False)
    retried = execute_refund(store, command(store, "alice"))

    assert (first.status, retried.status) == ("refunded", "refunded")
    assert retried.refund_id == first.refund_id
    assert len(list_refunds(store, "demo", "C-2210")) == 1
