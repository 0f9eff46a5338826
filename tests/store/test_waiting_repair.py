"""Mending the inbox's read model, on both backends, each guard on its own: a missing
row is added, but not for an action whose end the audit already holds; a row nobody
waits on goes, unless it is younger than the listing or its run said nothing; a row
behind on approvals takes the truth's. (The dev-server test of the whole path, from
visibility, is tests/ui/test_waiting_reconcile.py.)"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine, select

from activities.store import write_transaction
from activities.store.database import use_session
from activities.store.decisions import append_decision
from activities.store.schema import WaitingAction
from activities.store.waiting_actions import new_row
from activities.store.waiting_repair import WaitingTruth, reconcile_rows, remove_unlisted
from tests.clock import clock_now
from tests.exposures import refund_exposure
from workflows.actions import ActionState, DecisionEvent, DecisionRecord, PendingAction

LISTED = clock_now()
BEFORE = LISTED - timedelta(hours=1)


def action(letter: str, approvals: list[DecisionRecord] | None = None) -> PendingAction:
    state = ActionState(
        order_id="C-3107", currency="EUR", paid_minor=31_000, review_threshold_minor=20_000
    )
    return PendingAction(
        action_hash=letter * 64,
        tool_use_id="call-1",
        tool="refund",
        arguments={"amount": "250.00", "currency": "EUR"},
        targets={"tenant_id": "demo", "order_id": "C-3107"},
        reason="test",
        policy_version="test",
        state=state,
        state_hash="0" * 64,
        mode="review",
        required_approvals=2,
        approvals=approvals or [],
        requested_at=BEFORE,
        expires_at=LISTED + timedelta(hours=20),
        exposure=refund_exposure("250.00", "C-3107"),
    )


def truth(run_id: str, pending: PendingAction) -> WaitingTruth:
    return WaitingTruth("demo", run_id, "T-3107", pending)


def rows(store: Engine) -> dict[str, WaitingAction]:
    with use_session(store) as session:
        return {row.run_id: row for row in session.scalars(select(WaitingAction))}


ALICE = DecisionRecord(action_hash="f" * 64, kind="approved", reviewer_id="alice", at=BEFORE)


def the_guards_case(store: Engine) -> None:
    """Rows and an audit event that each guard of the mending has something to do with."""
    with write_transaction(store) as session:
        for run_id, letter, created in (
            ("run-gone", "c", BEFORE),  # terminated: nobody waits on it
            ("run-new", "d", LISTED),  # started waiting as the listing began
            ("run-mute", "e", BEFORE),  # its run answered neither memo nor query
            ("run-behind", "f", BEFORE),  # alice's approval never reached it
        ):
            session.add(new_row("demo", run_id, "T-3107", action(letter), created))
    # run-late's action was rejected after the memo the listing read was written.
    append_decision(
        store,
        DecisionEvent(
            run_id="run-late",
            tenant_id="demo",
            ticket_id="T-3107",
            sequence=0,
            record=DecisionRecord(
                action_hash="b" * 64, kind="rejected", reviewer_id="bob", at=LISTED
            ),
        ),
    )


# Every run the guards' case has a row or a truth for: one page holding them all.
EVERY_RUN = frozenset({"run-gone", "run-new", "run-mute", "run-behind", "run-missing", "run-late"})


def test_each_guard_of_the_mending(store: Engine) -> None:
    alice = ALICE
    the_guards_case(store)
    counts = reconcile_rows(
        store,
        [
            truth("run-missing", action("a")),
            truth("run-late", action("b")),
            truth("run-behind", action("f", [alice])),
        ],
        unknown_runs={"run-mute"},
        listed_from=LISTED,
        now=LISTED,
        runs=EVERY_RUN,
    )

    mended = rows(store)
    assert set(mended) == {"run-missing", "run-new", "run-mute", "run-behind"}
    assert mended["run-behind"].approvals_given == 1
    approvals = PendingAction.model_validate_json(mended["run-behind"].action).approvals
    assert approvals == [alice]
    assert (counts.added, counts.removed, counts.updated) == (1, 1, 1)
    # Mending again finds nothing to do.
    again = reconcile_rows(
        store,
        [truth("run-missing", action("a")), truth("run-behind", action("f", [alice]))],
        unknown_runs={"run-mute"},
        listed_from=LISTED,
        now=LISTED,
        runs=EVERY_RUN,
    )
    assert (again.added, again.removed, again.updated) == (0, 0, 0)


def test_page_by_page_the_mending_does_what_it_does_on_the_whole_table(store: Engine) -> None:
    """The reconcile takes the listing a page at a time (issue 13: all at once, its peak
    grew with every waiting run): each page touches only its own runs' rows, and the
    rows of runs no page listed go at the end, unless younger than the listing."""
    the_guards_case(store)
    first = reconcile_rows(
        store,
        [truth("run-missing", action("a")), truth("run-late", action("b"))],
        unknown_runs=set(),
        listed_from=LISTED,
        now=LISTED,
        runs={"run-missing", "run-late"},
    )
    between = rows(store)
    assert between["run-behind"].approvals_given == 0  # another page's run: untouched
    assert "run-gone" in between  # not listed: only the end removes it
    second = reconcile_rows(
        store,
        [truth("run-behind", action("f", [ALICE]))],
        unknown_runs={"run-mute"},
        listed_from=LISTED,
        now=LISTED,
        runs={"run-behind", "run-mute"},
    )
    listed = {"run-missing", "run-late", "run-behind", "run-mute"}
    unlisted_removed = remove_unlisted(store, listed, LISTED)

    mended = rows(store)
    assert set(mended) == {"run-missing", "run-new", "run-mute", "run-behind"}
    assert mended["run-behind"].approvals_given == 1
    assert (first.added, first.removed, first.updated) == (1, 0, 0)
    assert (second.added, second.removed, second.updated) == (0, 0, 1)
    assert unlisted_removed == 1  # run-gone; run-new is younger than the listing
