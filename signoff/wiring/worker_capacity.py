"""The worker's capacity options, apart from its assembly: a benchmark's baseline worker
takes the same tuning without importing signoff's activities (bench/runs/workers.py)."""

from __future__ import annotations

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
