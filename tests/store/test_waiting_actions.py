"""The inbox's read model on both backends: the exposure hold writes an action's row,
judged on the same exposure as the workflow; a first approval of two shows in it; the
event that ends the wait, a release or a superseding hold deletes it; and
every write is idempotent, as retried activities need."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine, select

from activities.store.database import use_session
from activities.store.decisions import append_decision
from activities.store.pending_refunds import hold_pending_refund, release_pending_refund
from activities.store.refunds import read_action_state
from activities.store.schema import WaitingAction
from activities.store.waiting_actions import hold_waiting
from tests.clock import clock_now
from workflows.actions import (
    ActionHold,
    DecisionEvent,
    DecisionKind,
    DecisionRecord,
    PendingAction,
    PendingRefundHold,
    PendingRefundRelease,
)
from workflows.approval_policy import money, state_hash
from workflows.exposure import ActionExposure

NOW = clock_now()
LATER = NOW + timedelta(hours=24)


def an_action(
    store: Engine, digest: str, amount_minor: int, ticket_id: str = "T-3107"
) -> PendingAction:
    state = read_action_state(store, "demo", ticket_id)
    assert state.order_id is not None and state.currency is not None
    return PendingAction(
        action_hash=digest,
        tool_use_id="call-1",
        tool="refund",
        arguments={"amount": money(amount_minor), "currency": state.currency},
        targets={"tenant_id": "demo", "order_id": state.order_id},
        reason="The espresso machine leaks.",
        policy_version="test",
        state=state,
        state_hash=state_hash(state),
        mode="confirm",
        required_approvals=1,
        requested_at=NOW,
        expires_at=LATER,
        # As the refund's hooks declare it (workflows/refund_hooks.py).
        exposure=ActionExposure(
            amount=money(amount_minor),
            currency=state.currency,
            order_id=state.order_id,
            amount_argument="amount",
        ),
    )


def hold_for(
    action: PendingAction, run_id: str, *, ticket_id: str = "T-3107", with_row: bool = True
) -> PendingRefundHold:
    return PendingRefundHold(
        run_id=run_id,
        tenant_id="demo",
        order_id=action.targets["order_id"],
        action_hash=action.action_hash,
        amount_minor=int(action.arguments["amount"].replace(".", "")),
        expires_at=action.expires_at,
        supersedes=action.supersedes,
        ticket_id=ticket_id if with_row else None,
        action=action if with_row else None,
    )


def rows(store: Engine) -> list[WaitingAction]:
    with use_session(store) as session:
        return list(session.scalars(select(WaitingAction).order_by(WaitingAction.created_at)))


def event(
    run_id: str, action: PendingAction, kind: DecisionKind, sequence: int, reviewer: str
) -> DecisionEvent:
    return DecisionEvent(
        run_id=run_id,
        tenant_id="demo",
        ticket_id="T-3107",
        sequence=sequence,
        record=DecisionRecord(
            action_hash=action.action_hash, kind=kind, reviewer_id=reviewer, at=NOW
        ),
        approval_number=sequence + 1 if kind == "approved" else None,
        approvals_required=2 if kind == "approved" else None,
    )


def test_a_hold_writes_the_row_judged_on_the_exposure(store: Engine) -> None:
    first = an_action(store, "a" * 64, 15_500)
    second = an_action(store, "b" * 64, 15_500)
    hold_pending_refund(store, hold_for(first, "run-a"), now=NOW)
    hold_pending_refund(store, hold_for(second, "run-b"), now=NOW)

    row_a, row_b = rows(store)
    assert (row_a.run_id, row_a.ticket_id, row_a.order_id) == ("run-a", "T-3107", "C-3107")
    assert (row_a.amount_minor, row_a.currency, row_a.tenant_id) == (15_500, "EUR", "demo")
    assert (row_a.mode, row_a.approvals_required, row_a.approvals_given) == ("confirm", 1, 0)
    # 155.00 pending + 155.00 is above the 200.00 threshold: four eyes, and the note says why.
    assert (row_b.mode, row_b.approvals_required) == ("review", 2)
    shown = PendingAction.model_validate_json(row_b.action)
    assert shown.pending_minor == 15_500 and shown.note.startswith("Four eyes: with 0.00")
    assert row_b.expires_at == LATER and row_b.created_at == NOW


def test_a_retried_hold_writes_one_row_and_a_hold_without_the_action_none(store: Engine) -> None:
    action = an_action(store, "a" * 64, 5_000)
    hold_pending_refund(store, hold_for(action, "run-a"), now=NOW)
    hold_pending_refund(store, hold_for(action, "run-a"), now=NOW)
    hold_pending_refund(store, hold_for(an_action(store, "c" * 64, 100), "run-c", with_row=False))
    assert [row.action_hash for row in rows(store)] == ["a" * 64]


def test_a_first_approval_shows_and_the_end_of_the_wait_deletes(store: Engine) -> None:
    action = an_action(store, "a" * 64, 25_000)
    hold_pending_refund(store, hold_for(action, "run-a"), now=NOW)
    assert rows(store)[0].approvals_required == 2

    append_decision(store, event("run-a", action, "approved", 0, "alice"))
    append_decision(store, event("run-a", action, "approved", 0, "alice"))  # a retry
    (row,) = rows(store)
    assert row.approvals_given == 1
    approvals = PendingAction.model_validate_json(row.action).approvals
    assert [approval.reviewer_id for approval in approvals] == ["alice"]

    append_decision(store, event("run-a", action, "approved", 1, "bob"))
    assert rows(store) == []


def test_a_refused_attempt_changes_nothing_and_a_rejection_deletes(store: Engine) -> None:
    action = an_action(store, "a" * 64, 5_000)
    hold_pending_refund(store, hold_for(action, "run-a"), now=NOW)
    append_decision(store, event("run-a", action, "refused", 0, "mallory"))
    assert [row.approvals_given for row in rows(store)] == [0]
    append_decision(store, event("run-a", action, "rejected", 1, "alice"))
    assert rows(store) == []


def test_a_release_and_a_superseding_hold_delete_the_row(store: Engine) -> None:
    voided = an_action(store, "a" * 64, 5_000)
    hold_pending_refund(store, hold_for(voided, "run-a"), now=NOW)
    renewed = an_action(store, "b" * 64, 5_000).model_copy(update={"supersedes": "a" * 64})
    hold_pending_refund(store, hold_for(renewed, "run-a"), now=NOW)
    assert [row.action_hash for row in rows(store)] == ["b" * 64]

    release_pending_refund(store, PendingRefundRelease(run_id="run-x", action_hash="b" * 64))
    assert len(rows(store)) == 1  # only the run that held it releases it
    release_pending_refund(store, PendingRefundRelease(run_id="run-a", action_hash="b" * 64))
    assert rows(store) == []


def test_a_tool_without_exposure_waits_with_no_money_and_no_order(store: Engine) -> None:
    # Its arguments and targets use the refund's names: none of them is read as money.
    refund = an_action(store, "a" * 64, 5_000)
    reply = refund.model_copy(update={"tool": "send_reply", "exposure": None})
    hold_waiting(
        store, ActionHold(run_id="run-r", tenant_id="demo", ticket_id="T-3107", action=reply), NOW
    )
    [row] = rows(store)
    assert (row.amount_minor, row.currency, row.order_id) == (None, None, "")
    assert PendingAction.model_validate_json(row.action) == reply
