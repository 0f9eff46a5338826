"""The inbox's read model, mended from Temporal's visibility.

The rows of `waiting_actions` are written by the activities a run already calls (see
`activities/store/waiting_actions.py`). What no activity sees is mended here: a run
terminated while it waited leaves its row; a run that started waiting before the read
model existed has none; a write that failed after every retry left one stale. A worker
reconciles when it starts and then every `read_model_reconcile_seconds`, so the model
never drifts for long.

The truth is what each waiting run publishes: the hashes of the actions it waits on
(search attribute `SignoffPending`). When its rows hold exactly those hashes they are
kept as they are, and the run is asked its `state` query only when they differ (or it
published none), so that thousands of waiting runs cost one listing, not one query
each. A run that does not answer keeps its rows: we cannot tell.

The listing is taken a page at a time (`RECONCILE_PAGE` runs): each page's runs are
compared with their own rows and mended in a transaction of their own, and only the
ids of the runs listed so far are kept, so that at the end the rows of runs no page
listed (no longer waiting) go. A round's memory is one page's, whatever the number of
waiting runs (`python -m bench.memory`), and no write lock is held for a
whole round.

That full round lists every waiting run: 8.8 s at 10,000 waiting. So it runs when the
worker starts and every `read_model_full_reconcile_seconds` (an hour by default);
the rounds between, every `read_model_reconcile_seconds`, are incremental: they list
only the runs that closed since the last round began (less the grace) and delete their
rows, which is the drift that happens in normal operation (a run terminated, cancelled
or timed out while it waited). The rarer drifts (a write that failed after every
retry, a run older than the read model) wait for the next full round.

Visibility lags, so rows written since the listing began (less a grace
period, `read_model_grace_seconds`, for clocks and lag) are kept, and an action whose
end the audit already holds is not added back from a listing older than its decision.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from sqlalchemy import Engine
from temporalio.client import Client, WorkflowExecution

from activities.store.waiting_repair import (
    RUN_ID_BATCH,
    ReconcileCounts,
    WaitingTruth,
    reconcile_rows,
    remove_rows_of,
    remove_unlisted,
    stored_hashes,
)
from signoff.config.settings import Settings
from signoff.config.temporal_service import service_of_client
from signoff.service.pending import waiting_query
from signoff.service.run_reading import run_state
from signoff.service.runs import TENANT_KEY
from workflows.contracts import WORKFLOW_NAME
from workflows.run_outcome import PENDING_KEY

log = logging.getLogger(__name__)
# Runs reconciled at once: one page of the listing, whose ids fit one `IN (...)`.
RECONCILE_PAGE = RUN_ID_BATCH
# State queries in flight at once: quick, and spares the worker.
QUERY_CONCURRENCY = 20
T = TypeVar("T")


def runs_to_query(
    indexed: dict[str, set[str]], stored: dict[str, set[str]]
) -> tuple[set[str], set[str]]:
    """Of the runs that publish their pending hashes (`indexed`), those whose rows hold
    exactly those hashes (kept as they are) and those to query for the truth."""
    kept = {run_id for run_id, hashes in indexed.items() if stored.get(run_id) == hashes}
    return kept, set(indexed) - kept


async def pages(items: AsyncIterator[T], size: int) -> AsyncIterator[list[T]]:
    """The listing in lists of `size` executions: one page's worth held at a time."""
    page: list[T] = []
    async for item in items:
        page.append(item)
        if len(page) == size:
            yield page
            page = []
    if page:
        yield page


async def page_truth(
    client: Client, engine: Engine, page: list[WorkflowExecution]
) -> tuple[list[WaitingTruth], set[str]]:
    """Every action the waiting runs of `page` say waits, and the ids of those whose
    rows must stay as they are: runs that said nothing, and runs whose rows match their
    hashes."""
    truth: list[WaitingTruth] = []
    unknown: set[str] = set()
    indexed: dict[str, set[str]] = {}
    gate = asyncio.Semaphore(QUERY_CONCURRENCY)
    temporal = service_of_client(client)

    async def queried(run_id: str) -> None:
        async with gate:
            state = await run_state(temporal, run_id)
        if state is None:
            unknown.add(run_id)
            return
        truth.extend(
            WaitingTruth(state.tenant_id, run_id, state.ticket_id, action)
            for action in state.pending_actions
        )

    to_query: list[str] = []
    for execution in page:
        attributes = execution.typed_search_attributes
        pending, tenant = attributes.get(PENDING_KEY), attributes.get(TENANT_KEY)
        if pending and tenant:
            indexed[execution.id] = set(pending)
        else:
            to_query.append(execution.id)
    if indexed:
        stored = await asyncio.to_thread(stored_hashes, engine, set(indexed))
        kept, differing = runs_to_query(indexed, stored)
        unknown |= kept
        to_query.extend(sorted(differing))
    await asyncio.gather(*(queried(run_id) for run_id in to_query))
    return truth, unknown


async def reconcile_waiting(client: Client, engine: Engine, grace: timedelta) -> ReconcileCounts:
    """Make the read model match what waiting runs say (see the module note), a page
    of the listing at a time: what it holds is one page's runs and rows, and the ids
    of the runs listed so far (all at once, its peak grew with every run waiting, and
    the worker's RSS kept that peak)."""
    listed_from = datetime.now(UTC) - grace
    listed: set[str] = set()
    counts, unknown_runs = ReconcileCounts(), 0
    executions = client.list_workflows(query=waiting_query(None), page_size=RECONCILE_PAGE)
    async for page in pages(executions, RECONCILE_PAGE):
        truth, unknown = await page_truth(client, engine, page)
        runs = {execution.id for execution in page}
        listed |= runs
        counts += await asyncio.to_thread(
            reconcile_rows, engine, truth, unknown, listed_from, datetime.now(UTC), runs
        )
        unknown_runs += len(unknown)
    removed = await asyncio.to_thread(remove_unlisted, engine, listed, listed_from)
    counts += ReconcileCounts(removed=removed)
    if counts.added or counts.removed or counts.updated:
        log.warning(
            "inbox read model mended from visibility: %d added, %d removed, %d updated "
            "(%d waiting runs did not answer)",
            counts.added,
            counts.removed,
            counts.updated,
            unknown_runs,
        )
    return counts


def closed_query(since: datetime) -> str:
    """The visibility query of the runs that closed at or after `since`."""
    stamp = since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return f"WorkflowType = '{WORKFLOW_NAME}' AND CloseTime >= '{stamp}'"


async def reconcile_closed(client: Client, engine: Engine, since: datetime) -> ReconcileCounts:
    """An incremental round: delete the rows of runs that closed at or after `since`
    (terminated, cancelled or timed out while they waited; a run that ends normally
    has had its rows deleted by the activity that ended its wait). Its cost is the
    runs that closed since, whatever the number still waiting."""
    removed = 0
    executions = client.list_workflows(query=closed_query(since), page_size=RECONCILE_PAGE)
    async for page in pages(executions, RECONCILE_PAGE):
        removed += await asyncio.to_thread(
            remove_rows_of, engine, {execution.id for execution in page}
        )
    if removed:
        log.warning(
            "inbox read model mended from visibility: %d rows of closed runs removed", removed
        )
    return ReconcileCounts(removed=removed)


class Reconciler:
    """Which round comes next: a full one at start and every `full_every`, an
    incremental one (`reconcile_closed`, since the last round began, less the grace)
    between them."""

    def __init__(self, client: Client, engine: Engine, grace: timedelta, full_every: timedelta):
        self.client, self.engine, self.grace, self.full_every = client, engine, grace, full_every
        self.last_full: datetime | None = None
        self.last_round: datetime | None = None

    def next_is_full(self, now: datetime) -> bool:
        return (
            self.last_full is None
            or self.last_round is None
            or now - self.last_full >= self.full_every
        )

    async def round(self) -> ReconcileCounts:
        """One round; after a failed one, the next is full (what the failed round
        missed is then mended whatever it was)."""
        began = datetime.now(UTC)
        try:
            if self.next_is_full(began):
                counts = await reconcile_waiting(self.client, self.engine, self.grace)
                self.last_full = began
            else:
                assert self.last_round is not None
                since = self.last_round - self.grace
                counts = await reconcile_closed(self.client, self.engine, since)
        except BaseException:
            self.last_full = None
            raise
        self.last_round = began
        return counts


async def keep_reconciled(client: Client, engine: Engine, settings: Settings) -> None:
    """Reconcile in full now, then every `read_model_reconcile_seconds` (0: only now)
    incrementally, and in full again every `read_model_full_reconcile_seconds`, until
    cancelled. A failed round (Temporal or the store away) is logged and tried again
    at the next, in full: the lists go on reading the rows meanwhile."""
    reconciler = Reconciler(
        client,
        engine,
        timedelta(seconds=settings.read_model_grace_seconds),
        timedelta(seconds=settings.read_model_full_reconcile_seconds),
    )
    while True:
        try:
            await reconciler.round()
        except Exception:  # the next round tries again; the worker must go on
            log.exception("could not reconcile the inbox read model; trying again later")
        if settings.read_model_reconcile_seconds <= 0:
            return
        await asyncio.sleep(settings.read_model_reconcile_seconds)
