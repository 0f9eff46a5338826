"""When a run must stop: its budgets, the worker's limits, and the named ending.

`RunEnded` stops the loop with a named outcome wherever it is raised; `run()` turns it
into the `RunOutcome`. The budgets are checked before each model turn and again after
an approval (`over_budget`): a decision never lets a spent run act. The worker's limits
are read once, at the start (see `run_limits.py`); without them the run fails closed.

This is workflow code: no I/O; the `run_limits` local activity reads the settings.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from workflows.cancellation import reraise_cancellation
    from workflows.contracts import FinalStatus, OutcomeReason, RunRequest
    from workflows.decision_keyring import RunKeyring
    from workflows.local_calls import local_call
    from workflows.run_books import RunBooks
    from workflows.run_limits import (
        RUN_LIMITS_ACTIVITY,
        RUN_LIMITS_ATTEMPTS,
        RUN_LIMITS_TIMEOUT,
        RunLimits,
        RunLimitsRequest,
        clamp,
    )


class RunEnded(Exception):
    """Raised inside the loop to stop it with a named outcome."""

    def __init__(self, status: FinalStatus, reason: OutcomeReason, detail: str) -> None:
        super().__init__(detail)
        self.status: FinalStatus = status
        self.reason: OutcomeReason = reason
        self.detail = detail


def check_budgets(books: RunBooks, request: RunRequest) -> None:
    """Before a model turn: raise RunEnded when a step, token or cost budget is spent."""
    if books.turns >= request.step_budget:
        raise RunEnded(
            "failed",
            "step_budget_exhausted",
            f"No answer within the step budget of {request.step_budget} model turns.",
        )
    if books.usage.total >= request.token_budget:
        raise RunEnded(
            "failed",
            "token_budget_exhausted",
            f"Used {books.usage.total} tokens, over the budget of {request.token_budget}.",
        )
    budget = request.cost_budget_usd
    if budget is not None and books.cost >= budget:
        raise RunEnded(
            "failed",
            "cost_budget_exhausted",
            f"Spent {books.cost_text()} USD, over the budget of {budget} USD.",
        )


def over_budget(books: RunBooks, request: RunRequest) -> str | None:
    """Checked again after an approval: a decision never lets a spent run act."""
    if books.usage.total >= request.token_budget:
        return f"used {books.usage.total} tokens, over its budget of {request.token_budget}"
    budget = request.cost_budget_usd
    if budget is not None and books.cost >= budget:
        return f"spent {books.cost_text()} USD, over its budget of {budget} USD"
    return None


async def worker_terms(request: RunRequest) -> tuple[RunRequest, RunKeyring]:
    """The request held to the worker's limits, and the keys the run checks decisions
    with, from one local activity.

    Local: it reads only what the worker process holds (its settings and public keys),
    so a round trip through the server would only add latency. Its result is a marker
    in the history, so a replay reads the same limits and keys. A retry runs in the
    worker while it holds the workflow task (the SDK heartbeats the task meanwhile); a
    worker that dies first leaves no marker, and the next worker asks its own settings
    again, which is what a fresh start would do. Reading settings twice changes nothing.
    """
    started_at = workflow.now()
    try:
        limits: RunLimits = await local_call(
            RUN_LIMITS_ACTIVITY,
            RunLimitsRequest(model=request.model, tenant_id=request.tenant_id),
            result_type=RunLimits,
            timeout=RUN_LIMITS_TIMEOUT,
            retry_policy=RetryPolicy(maximum_attempts=RUN_LIMITS_ATTEMPTS),
        )
    except ActivityError as error:
        reraise_cancellation(error)
        # Without the worker's limits the run would trust its starter's: fail closed.
        raise RunEnded(
            "failed",
            "worker_limits_unavailable",
            "The worker's run limits could not be read; the run did not start.",
        ) from None
    keyring = RunKeyring.of(limits.decision_keys, limits.decision_max_age_seconds)
    return clamp(request, limits, started_at), keyring
