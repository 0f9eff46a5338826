"""The activity wrappers: results stay results, store errors are final, outages retry."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.refunds import RefundActivities
from activities.store import refunds as ledger
from tests.store.commands import refund_command
from tests.store.proofs import (
    PROOF_KEYS,
    as_run,
    in_its_workflow_task,
    proven_action,
    proven_command,
    signed_approval,
)
from tests.store.test_waiting_actions import an_action, rows
from workflows.actions import ActionHold, ActionStateRequest, RefundCommand


async def test_read_action_state(store: Engine) -> None:
    activities = RefundActivities(store, PROOF_KEYS)
    state = await ActivityEnvironment().run(
        activities.read_action_state, ActionStateRequest(tenant_id="demo", ticket_id="T-2210")
    )
    assert (state.order_id, state.paid_minor) == ("C-2210", 4500)


async def test_execute_refund_and_its_refusal(store: Engine) -> None:
    activities = RefundActivities(store, PROOF_KEYS)
    environment = as_run()
    whole = proven_action(store, 4500)
    done = await environment.run(
        activities.execute_refund, proven_command(whole, [signed_approval(store, whole, "alice")])
    )
    more = proven_action(store, 100, call_id="call-2")
    refused = await environment.run(
        activities.execute_refund, proven_command(more, [signed_approval(store, more, "alice")])
    )
    assert (done.status, refused.status) == ("refunded", "refused")
    assert "more than what remains refundable" in refused.message


async def test_unknown_tenant_is_not_retried(store: Engine) -> None:
    activities = RefundActivities(store, PROOF_KEYS)
    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(
            activities.read_action_state, ActionStateRequest(tenant_id="nobody", ticket_id="T-1")
        )
    assert caught.value.non_retryable
    assert caught.value.type == "UnknownTenant"
    assert "nobody" in caught.value.message


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
async def test_a_locked_database_propagates_for_temporal_to_retry(
    store: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    def locked(engine: Engine, command: RefundCommand, check: object) -> ledger.LedgerAnswer:
        raise OperationalError("BEGIN IMMEDIATE", {}, Exception("database is locked"))

    monkeypatch.setattr(ledger, "answer_refund", locked)
    with pytest.raises(OperationalError):
        await ActivityEnvironment().run(
            RefundActivities(store, PROOF_KEYS).execute_refund,
            refund_command(store, key="k", amount_minor=100),
        )


async def test_a_hold_holds_and_lists_the_action(store: Engine) -> None:
    """A run's hold (the action alone) writes the exposure and inbox rows of the full hold
    (workflows/action_hold.py)."""
    activities = RefundActivities(store, PROOF_KEYS)
    first = an_action(store, "a" * 64, 15_500)
    second = an_action(store, "b" * 64, 15_500)
    hold_a = ActionHold(run_id="run-a", tenant_id="demo", ticket_id="T-3107", action=first)
    hold_b = ActionHold(run_id="run-b", tenant_id="demo", ticket_id="T-3107", action=second)

    held_first = await in_its_workflow_task("run-a").run(activities.hold_pending_refund, hold_a)
    held_second = await in_its_workflow_task("run-b").run(activities.hold_pending_refund, hold_b)

    assert (held_first.pending_minor, held_second.pending_minor) == (0, 15_500)
    row_a, row_b = rows(store)
    assert (row_a.run_id, row_a.action_hash, row_a.ticket_id) == ("run-a", "a" * 64, "T-3107")
    assert (row_a.amount_minor, row_a.expires_at) == (15_500, first.expires_at)
    assert (row_b.mode, row_b.approvals_required) == ("review", 2)  # it counted run-a's hold


async def test_a_hold_asked_from_outside_a_run_s_workflow_task_is_refused(store: Engine) -> None:
    """The hold is a local activity of the run's gate: scheduled on the task queue (by a
    workflow of someone else's, for its own id) it holds nothing and lists nothing."""
    action = an_action(store, "c" * 64, 15_500)
    hold = ActionHold(run_id="run-c", tenant_id="demo", ticket_id="T-3107", action=action)
    with pytest.raises(ApplicationError) as refused:
        await as_run("run-c").run(RefundActivities(store, PROOF_KEYS).hold_pending_refund, hold)
    assert (refused.value.type, refused.value.non_retryable) == ("NotItsRun", True)
    assert rows(store) == []


async def test_a_retried_refund_counts_once_as_refunded_then_as_replayed(store: Engine) -> None:
    """A second call with the same key (a retry after the commit) refunds nothing, and the
    metric says so: `replayed`, not a second `refunded`."""

    def count(status: str) -> float:
        return REGISTRY.get_sample_value("signoff_refunds_total", {"status": status}) or 0.0

    activities, environment = RefundActivities(store, PROOF_KEYS), as_run()
    action = proven_action(store, 4500)
    command = proven_command(action, [signed_approval(store, action, "alice")])
    refunded, replayed = count("refunded"), count("replayed")

    first = await environment.run(activities.execute_refund, command)
    again = await environment.run(activities.execute_refund, command)

    assert (first.status, again.status) == ("refunded", "refunded")
    assert again.refund_id == first.refund_id and again.message.startswith("Already done")
    assert count("refunded") - refunded == 1
    assert count("replayed") - replayed == 1
