"""When a run must stop: its budgets, the worker's limits, and the named ending.

`RunEnded` stops the loop with a named outcome wherever it is raised; `run()` turns it
into the `RunOutcome`. The budgets are checked before each model turn and again after
an approval (`over_budget`): a decision never lets a spent run act. The worker's limits
come once, with the run's first model turn (see `run_limits.py`), and hold the run from
that turn's cost on; without them the run fails closed.

This is workflow code: no I/O; the model-turn activity reads the worker's settings.
"""

from __future__ import annotations

from datetime import datetime

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.contracts import FinalStatus, ModelReply, OutcomeReason, RunRequest
    from workflows.decision_keyring import RunKeyring
    from workflows.run_books import RunBooks
    from workflows.run_limits import RunLimitsRequest, clamp


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


def limits_asked(request: RunRequest) -> RunLimitsRequest:
    """What the run's first model turn asks the worker's limits for (run_limits.py)."""
    return RunLimitsRequest(model=request.model, tenant_id=request.tenant_id)


def worker_terms(
    request: RunRequest, first_reply: ModelReply, started_at: datetime
) -> tuple[RunRequest, RunKeyring]:
    """The request held to the worker's limits that came with the run's first model
    turn, and the keys the run checks decisions with; the deadline counted from
    `started_at`, the run's start.

    The reply is in the history, so a replay reads the same limits and keys. A retried
    turn asks the worker that runs the retry, which is what a fresh start would do:
    reading settings twice changes nothing.
    """
    limits = first_reply.worker_limits
    if limits is None:
        # A model-turn activity that does not answer with them (not signoff's own): the
        # run would trust its starter's limits. Fail closed.
        raise RunEnded(
            "failed",
            "worker_limits_unavailable",
            "The worker's run limits did not come back with the first model turn; the "
            "run did not go on.",
        )
    keyring = RunKeyring.of(limits.decision_keys, limits.decision_max_age_seconds)
    return clamp(request, limits, started_at), keyring
