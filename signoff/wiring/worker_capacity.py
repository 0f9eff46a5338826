"""The worker's capacity options, apart from its assembly: a benchmark's baseline worker
takes the same tuning without importing signoff's activities (bench/runs/workers.py).

Design note: a thread for every activity slot. signoff's activities are coroutines that
hand their blocking work to a thread of asyncio's default executor: the store's calls, a
payment platform's (Stripe's SDK is synchronous), a team's plain-function tools. That
executor has min(32, cores + 4) threads, 6 on 2 cores, against the 50 activities a
worker runs at once. A payment platform that answered slowly, or a team's tool that
hung (its thread outlives its attempt: a thread cannot be stopped), then held every
thread, and every other activity of the worker, of every tenant, waited for one: a
ledger refund, a read of the store. `signoff worker` gives the executor as many
threads as activity slots (`activity_threads`), started only as calls need them, so an
activity never waits for a thread; the store's connection pool still bounds how many
talk to the store at once, and the local activities keep a lane of their own
(`activities/local_lane.py`).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from temporalio.worker import PollerBehaviorSimpleMaximum

from signoff.config.settings import Settings


def capacity(settings: Settings) -> dict[str, Any]:
    """The `Worker` options of capacity and shutdown grace, from the settings (docs/
    operating/temporal.md); bench/runs/workers.py gives its baselines the same.
    On shutdown the worker stops polling at once, then gives in-flight activities
    `worker_shutdown_seconds` to finish before it cancels them."""
    return {
        "max_concurrent_activities": settings.worker_max_concurrent_activities,
        "max_concurrent_workflow_tasks": settings.worker_max_concurrent_workflow_tasks,
        "max_cached_workflows": settings.worker_max_cached_workflows,
        "workflow_task_poller_behavior": PollerBehaviorSimpleMaximum(
            settings.worker_workflow_task_pollers
        ),
        "activity_task_poller_behavior": PollerBehaviorSimpleMaximum(
            settings.worker_activity_task_pollers
        ),
        "graceful_shutdown_timeout": timedelta(seconds=settings.worker_shutdown_seconds),
    }


def activity_threads(settings: Settings) -> ThreadPoolExecutor:
    """asyncio's default executor for a worker: a thread for each activity slot (see the
    module note), never fewer than asyncio's own default."""
    asyncio_default = min(32, (os.cpu_count() or 1) + 4)  # ThreadPoolExecutor's own
    size = max(settings.worker_max_concurrent_activities, asyncio_default)
    return ThreadPoolExecutor(size, thread_name_prefix="signoff-activity")
