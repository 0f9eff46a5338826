"""Workers with a fault, for the scenarios that need one the model cannot produce.

Each is a real worker (the real workflow, the real activities, the stack's Temporal and
decision key) on its own task queue; a scenario with that fault starts its run there.

- `connector_down`: its store is a SQLite file whose folder was removed after the
  tables were made, and its engine was built before and holds no connection: every
  tool and store call fails to connect (`unable to open database file`), as with a
  database that is down, and is retried as a transient failure until the tool's
  attempts run out.
  The model still reads the runs' prompt catalogs from the stack's store: the shop's
  connector is what is down, not the run's own store, and the agent must still be able
  to tell the customer it could not look the order up.
- `refund_timeout_after_commit`: the real refund activity runs and commits; then, on
  its first attempt, it holds its answer past the attempt's start-to-close timeout, so
  the attempt times out (the worker cancels it) as one whose worker lost its
  connection after the commit would.
  Temporal retries; the retry must find the ledger row by its key (one refund).
- `refund_outcome_unknown`: the same on every attempt, so the run never learns the
  outcome: it must list the action as unknown, and `reconcile` must find it refunded.
  The workflow's retry policy makes this take minutes (ten attempts, with backoff).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta
from pathlib import Path

from sqlalchemy import Engine
from temporalio import activity
from temporalio.client import Client
from temporalio.worker import Worker

from activities.model_turn import build_model_turns
from activities.refunds import RefundActivities
from activities.store import make_engine
from signoff.config.decision_keys import load_verification_keys
from signoff.config.decision_signatures import VerificationKeys
from signoff.config.settings import Settings
from signoff.wiring.worker import build_worker
from workflows.actions import EXECUTE_REFUND_ACTIVITY, RefundCommand, RefundResult
from workflows.gate_store import REFUND_CALL_TIMEOUT

CONNECTOR_DOWN = "connector_down"
REFUND_TIMEOUT_AFTER_COMMIT = "refund_timeout_after_commit"
REFUND_OUTCOME_UNKNOWN = "refund_outcome_unknown"
# Held past the attempt's timeout, with a margin: the attempt times out first.
HOLD_PAST_TIMEOUT = REFUND_CALL_TIMEOUT + timedelta(seconds=5)
# Retries may not run twice in a row on a worker without a cache: no sticky queue.
NO_CACHE = 0


def unreachable_store(home: Path) -> Engine:
    """An engine on a store that is gone. Built while the store was there (an engine
    made later would create the folder again and migrate a fresh, empty store, where
    every lookup finds nothing instead of failing); its pool then holds no connection,
    so each new one fails, and SQLite never creates a missing folder."""
    folder = Path(tempfile.mkdtemp(prefix="signoff-down-", dir=home))
    engine = make_engine(f"sqlite:///{folder / 'gone.db'}")
    engine.dispose()
    shutil.rmtree(folder)
    return engine


class RefundsWhoseAnswerIsLost(RefundActivities):
    def __init__(self, engine: Engine, keys: VerificationKeys, every_attempt: bool) -> None:
        super().__init__(engine, keys)
        self._every_attempt = every_attempt

    @activity.defn(name=EXECUTE_REFUND_ACTIVITY)
    async def execute_refund(self, command: RefundCommand) -> RefundResult:
        result = await super().execute_refund(command)  # the real refund: committed
        if self._every_attempt or activity.info().attempt == 1:
            await asyncio.sleep(HOLD_PAST_TIMEOUT.total_seconds())
        return result


def late_refund_worker(
    client: Client, settings: Settings, engine: Engine, every_attempt: bool
) -> Worker:
    """The worker of build_worker, with the refund's answer held back and no cache."""
    uncached = settings.model_copy(update={"worker_max_cached_workflows": NO_CACHE})
    refunds = RefundsWhoseAnswerIsLost(engine, load_verification_keys(settings), every_attempt)
    return build_worker(client, uncached, engine, refunds=refunds)


@asynccontextmanager
async def fault_workers(
    client: Client, settings: Settings, engine: Engine
) -> AsyncIterator[dict[str, str]]:
    """Both fault workers, running; yields fault kind -> task queue."""
    down = settings.model_copy(update={"task_queue": f"{settings.task_queue}-{CONNECTOR_DOWN}"})
    queues = {CONNECTOR_DOWN: down.task_queue}
    models = build_model_turns(down)
    models.read_catalogs_from(engine)
    gone = unreachable_store(settings.home)
    async with AsyncExitStack() as workers:
        workers.callback(gone.dispose)
        await workers.enter_async_context(build_worker(client, down, gone, models=models))
        for kind, every_attempt in (
            (REFUND_TIMEOUT_AFTER_COMMIT, False),
            (REFUND_OUTCOME_UNKNOWN, True),
        ):
            late = settings.model_copy(update={"task_queue": f"{settings.task_queue}-{kind}"})
            worker = late_refund_worker(client, late, engine, every_attempt)
            await workers.enter_async_context(worker)
            queues[kind] = late.task_queue
        yield queues
