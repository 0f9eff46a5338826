"""The store unavailable for 10 s: PostgreSQL stopped while refunds and reads are in flight.

PostgreSQL, not SQLite: the SQLite store runs in WAL mode, where a writer's lock never
stops a reader, so a locked SQLite file cannot take reads away; a stopped server takes
everything. To be sure the refunds meet the outage, not just the reads:

1. N runs wait for approval on a worker whose store is a PostgreSQL cluster;
2. this process locks `refund_settlements` (which every refund transaction reads), and
   approves all N: each refund activity starts and blocks on the lock (or waits for a
   connection of the worker's pool, whose connections are all blocked there);
3. N more runs start (their tool calls read tickets and orders);
4. the cluster stops (fast shutdown: every session ended, its transaction rolled back,
   the lock's too), stays down 10 s, starts again on the same port.

Each refund's attempt fails, Temporal retries it with the same idempotency key; every
run must end with exactly one refund. The histories say how many attempts were retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import replace

import psycopg

from activities.store import make_engine, seed_demo
from bench.chaos.postgres import DATABASE, Cluster, postgres_cluster
from bench.chaos.processes import READY_SECONDS, worker_environment, worker_process
from bench.chaos.runs import (
    TENANT,
    Bench,
    Handle,
    Row,
    approve_all,
    finish_refunds,
    pending_hash,
    refund_row,
    retried_attempts,
    retried_text,
    start_runs,
)
from testkit.refund_cases import add_refund_cases
from workflows.actions import EXECUTE_REFUND_ACTIVITY

OUTAGE_SECONDS = 10


def locked_settlements(cluster: Cluster) -> psycopg.Connection:
    connection = psycopg.connect(
        host="127.0.0.1", port=cluster.port, user="postgres", dbname=DATABASE
    )
    connection.execute("LOCK TABLE refund_settlements IN ACCESS EXCLUSIVE MODE")
    return connection


async def refunds_in_flight(handles: list[Handle]) -> None:
    """Wait until every run's refund activity is scheduled and none has completed: they
    wait on the lock, or for a connection of the worker's pool behind those that do."""
    deadline = time.monotonic() + READY_SECONDS
    while True:
        pending = 0
        for handle in handles:
            description = await handle.describe()
            pending += any(
                activity.activity_type.name == EXECUTE_REFUND_ACTIVITY
                for activity in description.raw_description.pending_activities
            )
        if pending == len(handles):
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"only {pending} of {len(handles)} refunds were in flight")
        await asyncio.sleep(0.5)


def sessions_on_lock(cluster: Cluster) -> int:
    query = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
    return int(str(cluster.sql(query)[0][0]))


async def store_outage(sqlite_bench: Bench, _env: dict[str, str], runs: int) -> Row:
    with postgres_cluster() as cluster:
        engine = make_engine(cluster.url)
        seed_demo(engine)
        settings = sqlite_bench.settings.model_copy(update={"database_url": cluster.url})
        bench = replace(sqlite_bench, settings=settings, engine=engine)
        tickets = add_refund_cases(cluster.url, TENANT, 2 * runs)
        with worker_process(worker_environment(settings), "store"):
            waiting = await start_runs(bench, tickets[:runs])
            await asyncio.gather(*(pending_hash(handle) for handle in waiting))
            lock = locked_settlements(cluster)
            await approve_all(bench, waiting)
            await refunds_in_flight(waiting)
            reading = await start_runs(bench, tickets[runs:])
            on_lock = sessions_on_lock(cluster)
            injected_at = time.monotonic()
            cluster.stop()
            with contextlib.suppress(psycopg.Error):
                lock.close()
            await asyncio.sleep(OUTAGE_SECONDS)
            cluster.start()
            # This process's own connections died with the server too; the worker's are
            # the ones under test, these only count the rows afterwards.
            engine.dispose()
            finished_waiting, finished_reading = await asyncio.gather(
                finish_refunds(bench, waiting, decide_too=False),
                finish_refunds(bench, reading, decide_too=True),
            )
            retried = await retried_attempts([*waiting, *reading])
        notes = [
            f"Store down {OUTAGE_SECONDS} s (PostgreSQL stopped): {runs} refunds in flight "
            f"({on_lock} sessions waiting on the lock at the stop, the rest queued behind "
            f"them) and {runs} runs reading; activity attempts retried: "
            f"{retried_text(retried)}."
        ]
        row = refund_row(
            "store unavailable 10 s (PostgreSQL stopped)",
            bench,
            tickets,
            [*finished_waiting, *finished_reading],
            injected_at,
            notes,
        )
        engine.dispose()
    return row
