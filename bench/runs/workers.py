"""One worker process of `python -m bench.runs`: signoff's, or one baseline's.

Each runs alone in its process so that the benchmark can read its CPU time and peak RSS
from /proc, and each has the same capacity options (`capacity`: workflow-task slots,
cache, pollers; and `activity_threads`, a thread per activity slot, as `signoff worker`
has): those are tuning, not engine, and must not differ between the sides.
signoff's and the raw baseline's register the same activities, built on the same store
and settings (signoff/wiring/worker_activities.py), and differ only in the workflow they
run and in signoff's metrics interceptor, which is part of what its engine does. The
minimal baseline's worker registers its own few activities on the same SQLite ledger.
The settings come from the environment (`SIGNOFF_*`), the task queue from the command
line. It prints READY once polling, and stops on SIGTERM.

    python -m bench.runs.workers {signoff,raw,minimal} TASK_QUEUE
"""

from __future__ import annotations

import asyncio
import signal
import sys

from temporalio.client import Client
from temporalio.worker import Worker

from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.wiring.worker_capacity import activity_threads, capacity
from signoff.wiring.worker_heap import settle_heap
from workflows.sandbox import workflow_runner

READY = "READY"
WORKER_KINDS = ("signoff", "raw", "minimal")


def raw_worker(client: Client, settings: Settings) -> Worker:
    """The raw baseline's worker: signoff's activities, the hand-written workflow."""
    from activities.store import make_engine
    from bench.runs.raw_refund import RawRefund
    from signoff.wiring.worker import activity_parts
    from signoff.wiring.worker_activities import worker_activities

    engine = make_engine(settings.resolved_database_url)
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=[RawRefund],
        # The same sandbox as signoff's worker: its own module passed through as well.
        workflow_runner=workflow_runner("bench.runs.raw_refund"),
        activities=worker_activities(activity_parts(settings, engine)),
        **capacity(settings),
    )


def signoff_worker(client: Client, settings: Settings) -> Worker:
    from signoff.wiring.worker import build_worker

    return build_worker(client, settings)


def minimal_worker(client: Client, settings: Settings) -> Worker:
    """The minimal baseline's worker: its own workflow and activities. Only what it
    uses is imported (nothing of signoff's activities or store), as its peak RSS counts."""
    from bench.runs.minimal_activities import MinimalShop
    from bench.runs.minimal_workflow import MinimalRefund

    shop = MinimalShop(settings.resolved_database_url)
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=[MinimalRefund],
        workflow_runner=workflow_runner("bench.runs.minimal_workflow"),
        activities=[
            shop.model_turn,
            shop.read_ticket,
            shop.get_order,
            shop.read_action_state,
            shop.execute_refund,
        ],
        **capacity(settings),
    )


async def serve(kind: str, task_queue: str) -> None:
    settings = Settings(task_queue=task_queue)
    # As `signoff worker` does (run_worker), for every side: a thread per activity slot.
    asyncio.get_running_loop().set_default_executor(activity_threads(settings))
    client = await connect(settings)
    builders = {"signoff": signoff_worker, "raw": raw_worker, "minimal": minimal_worker}
    worker = builders[kind](client, settings)
    # As `signoff worker` does, for every side: what it imported (each builder imports
    # its own) frozen, old garbage collected soon (signoff/wiring/worker_heap.py).
    settle_heap()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with worker:
        print(READY, flush=True)  # noqa: T201
        await stop.wait()


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] not in WORKER_KINDS:
        raise SystemExit("usage: python -m bench.runs.workers {signoff,raw,minimal} TASK_QUEUE")
    asyncio.run(serve(sys.argv[1], sys.argv[2]))


if __name__ == "__main__":
    main()
