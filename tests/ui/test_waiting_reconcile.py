"""The inbox's read model is mended from visibility (issue 13), on the dev server: a row
deleted by hand comes back (the run's pending hashes differ from its rows, so its
`state` query tells the action), a stale row of a still-waiting run goes, a row of a
run that no longer waits goes, and a row younger than the grace period stays
(visibility lags behind a run that has just started to wait). Between full rounds, an
incremental round removes only the rows of runs that closed since."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, delete, select

from activities.store import write_transaction
from activities.store.database import use_session
from activities.store.schema import WaitingAction
from activities.store.waiting_actions import new_row
from activities.store.waiting_repair import ReconcileCounts
from signoff.config.temporal_client import connect
from signoff.service.handles import Runs
from signoff.service.pending import run_state
from signoff.service.waiting_reconcile import reconcile_closed, reconcile_waiting
from signoff.wiring.worker import run_worker
from tests.ui.conftest import (
    DevStack,
    RefundCase,
    add_case,
    in_thread,
    start_run,
    wait_until_pending,
)
from workflows.actions import PendingAction

pytestmark = pytest.mark.devserver
GRACE = timedelta(minutes=1)
MEND_SECONDS = 30.0


def rows(store: Engine, run_id: str) -> list[WaitingAction]:
    with use_session(store) as session:
        return list(session.scalars(select(WaitingAction).where(WaitingAction.run_id == run_id)))


def row(store: Engine, run_id: str) -> WaitingAction | None:
    found = rows(store, run_id)
    return found[0] if found else None


def stray(store: Engine, template: PendingAction, run_id: str, created_at: datetime) -> None:
    """A row for a run that is not waiting, as a terminated run would leave it."""
    with write_transaction(store) as session:
        session.add(new_row("demo", run_id, "T-GONE", template, created_at))


def test_rows_are_mended_from_what_waiting_runs_say(
    dev_stack: DevStack, store: Engine, pending_case: RefundCase
) -> None:
    settings = dev_stack.settings()
    written = row(store, pending_case.run_id)
    assert written is not None, "the hold wrote no row"
    action = PendingAction.model_validate_json(written.action)
    now = datetime.now(UTC)
    with write_transaction(store) as session:
        session.execute(delete(WaitingAction).where(WaitingAction.run_id == pending_case.run_id))
    stray(store, action, "run-demo-terminated-long-ago", now - 2 * GRACE)
    stray(store, action, "run-demo-just-started", now)
    superseded = action.model_copy(update={"action_hash": "0" * 64})
    stray(store, superseded, pending_case.run_id, now - 2 * GRACE)

    async def mend() -> tuple[ReconcileCounts, list[PendingAction]]:
        client = await connect(settings)
        counts = await reconcile_waiting(client, store, GRACE)
        state = await run_state(Runs(client), pending_case.run_id)
        assert state is not None, "the waiting run did not answer its state query"
        return counts, state.pending_actions

    counts, truth = in_thread(mend())

    left = rows(store, pending_case.run_id)  # the stale row went, the true one came back
    assert [PendingAction.model_validate_json(kept.action) for kept in left] == truth
    mended = left[0]
    assert (mended.tenant_id, mended.ticket_id) == ("demo", pending_case.ticket_id)
    assert row(store, "run-demo-terminated-long-ago") is None
    assert row(store, "run-demo-just-started") is not None  # within the grace period
    assert counts.added >= 1 and counts.removed >= 1
    with write_transaction(store) as session:
        session.execute(
            delete(WaitingAction).where(WaitingAction.run_id == "run-demo-just-started")
        )


def test_a_worker_mends_the_read_model_when_it_starts(
    dev_stack: DevStack, store: Engine, pending_case: RefundCase
) -> None:
    """The wiring: `signoff worker` (run_worker) reconciles as it starts polling."""
    settings = dev_stack.settings().model_copy(
        update={"task_queue": f"mend-{uuid.uuid4().hex[:8]}", "read_model_reconcile_seconds": 0}
    )
    with write_transaction(store) as session:
        session.execute(delete(WaitingAction).where(WaitingAction.run_id == pending_case.run_id))

    async def start_a_worker() -> bool:
        client = await connect(settings)
        stop = asyncio.Event()
        worker = asyncio.create_task(run_worker(client, settings, stop))
        deadline = time.monotonic() + MEND_SECONDS
        while row(store, pending_case.run_id) is None and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        stop.set()
        await worker
        return row(store, pending_case.run_id) is not None

    assert in_thread(start_a_worker()), "the starting worker did not mend the read model"


def test_an_incremental_round_removes_the_rows_of_runs_closed_since_and_nothing_else(
    dev_stack: DevStack, store: Engine
) -> None:
    """Between full rounds, a round lists only the runs that closed since the last one:
    a run terminated while it waited loses its row, a waiting run keeps its own, and a
    stray row of a run that never closed is left for the next full round."""
    waiting, terminated = add_case(store), add_case(store)
    for case in (waiting, terminated):
        start_run(dev_stack, case)
        wait_until_pending(dev_stack, case)
    template = row(store, waiting.run_id)
    assert template is not None and row(store, terminated.run_id) is not None
    action = PendingAction.model_validate_json(template.action)
    stray(store, action, "run-demo-never-closed", datetime.now(UTC) - 2 * GRACE)

    async def terminate_then_mend() -> ReconcileCounts:
        client = await connect(dev_stack.settings())
        since = datetime.now(UTC) - GRACE
        await client.get_workflow_handle(terminated.run_id).terminate("the test ends it")
        deadline = time.monotonic() + MEND_SECONDS
        counts = ReconcileCounts()
        while row(store, terminated.run_id) is not None and time.monotonic() < deadline:
            counts += await reconcile_closed(client, store, since)  # visibility lags
            await asyncio.sleep(0.2)
        return counts

    counts = in_thread(terminate_then_mend())

    assert row(store, terminated.run_id) is None
    # At least this run's row: another test's run on this shared stack may have closed
    # in the same window, and its row goes too. What must stay is asserted below.
    assert counts.removed >= 1
    assert row(store, waiting.run_id) is not None
    assert row(store, "run-demo-never-closed") is not None  # only a full round sees it
    with write_transaction(store) as session:
        session.execute(
            delete(WaitingAction).where(WaitingAction.run_id == "run-demo-never-closed")
        )
