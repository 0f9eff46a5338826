"""The worker's interceptor for metrics: activity retries and failures, runs by outcome.

Design note. Temporal retries an activity without the activity's code knowing why;
the interceptor sees every attempt (`activity.info().attempt`) and counts those after
the first, and the attempts that raised. A run's outcome is known only to the workflow,
whose code must stay deterministic and replays: the workflow-side interceptor hands the
outcome's status and reason to a function outside the sandbox (an extern function, as
Temporal's own tracing interceptor does) only when the run really ends, never while a
worker replays its history, so a run is counted once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from temporalio import activity, workflow
from temporalio.converter import PayloadConverter
from temporalio.exceptions import FailureError
from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    ExecuteWorkflowInput,
    Interceptor,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
)

from activities import metrics
from signoff.config.run_identity import run_identity

RUN_FINISHED_EXTERN = "signoff_run_finished"
# Where Temporal's tracing interceptor carries the trace context (its `header_key`).
TRACE_HEADER = "_tracer-data"
logger = logging.getLogger("signoff.worker")


class ObserveInterceptor(Interceptor):
    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _ActivityAttempts(next)

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor]:
        input.unsafe_extern_functions[RUN_FINISHED_EXTERN] = run_finished
        return _RunOutcomes


class _ActivityAttempts(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        info = activity.info()
        if info.attempt > 1:
            metrics.ACTIVITY_RETRIES.labels(info.activity_type).inc()
            logger.warning("%s: attempt %d", info.activity_type, info.attempt)
        try:
            return await super().execute_activity(input)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            kind = getattr(error, "type", None) or type(error).__name__
            metrics.ACTIVITY_FAILURES.labels(info.activity_type, kind).inc()
            raise


class _RunOutcomes(WorkflowInboundInterceptor):
    """Runs in the workflow sandbox: no I/O here, only the extern call at the end."""

    async def execute_workflow(self, input: ExecuteWorkflowInput) -> Any:
        try:
            result = await super().execute_workflow(input)
        except FailureError as error:
            # A run that fails rather than returning an outcome (a triage error, say).
            # Any other exception fails the workflow task, which Temporal retries: not
            # an end, so not counted.
            self._report(input, "failed", type(error).__name__, 0)
            raise
        self._report(
            input,
            str(getattr(result, "status", "completed")),
            str(getattr(result, "reason", "-")),
            len(getattr(result, "effects_unknown", ()) or ()),
        )
        return result

    @staticmethod
    def _report(input: ExecuteWorkflowInput, status: str, reason: str, unknown: int) -> None:
        if workflow.unsafe.is_replaying():
            return
        finished: Callable[..., None] = workflow.extern_functions()[RUN_FINISHED_EXTERN]
        info = workflow.info()
        header = input.headers.get(TRACE_HEADER)
        finished(info.workflow_type, info.workflow_id, status, reason, unknown, header)


def run_finished(
    workflow_type: str,
    workflow_id: str,
    status: str,
    reason: str,
    unknown_refunds: int,
    trace_header: Any = None,
) -> None:
    """Outside the sandbox: count the run and say how it ended."""
    metrics.RUNS.labels(workflow_type, status, reason).inc()
    if unknown_refunds:
        metrics.REFUNDS_UNKNOWN.inc(unknown_refunds)
    identity = run_identity(workflow_id)
    logger.info(
        "run finished: %s (%s)%s",
        status,
        reason,
        f", {unknown_refunds} refund(s) with unknown outcome" if unknown_refunds else "",
        extra={
            "temporal_workflow": {"workflow_id": identity.run_id, "workflow_type": workflow_type},
            "signoff_trace_id": _trace_id(trace_header),
        },
    )


def _trace_id(header: Any) -> str | None:
    """The trace id in the run's tracing header (W3C traceparent), if it has one."""
    if header is None:
        return None
    try:
        [carrier] = PayloadConverter.default.from_payloads([header])
        parts = str(carrier.get("traceparent", "")).split("-")
    except Exception:  # a header we cannot read: the line goes without a trace id
        return None
    if len(parts) == 4 and len(parts[1]) == 32 and parts[1] != "0" * 32:
        return parts[1]
    return None
