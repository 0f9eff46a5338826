"""Which run called an activity, and the refusal of a call about another run.

Anyone who reaches the Temporal frontend can run a workflow of their own that calls
signoff's activities by name on its task queue. What an activity receives is then
theirs to write; which workflow scheduled it is not: Temporal says it, and no workflow
can take the id of a run that is open. So an activity that acts for a run (holds,
releases, audit records, decisions, effects) checks that the run is its caller.
"""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError

# The error type of a call refused for its caller; activities/refusal_audit.py puts each
# on the audit.
NOT_ITS_RUN = "NotItsRun"


def caller_run_id() -> str:
    """The workflow that scheduled this activity; "" for one no workflow scheduled, which
    is then no run's."""
    return activity.info().workflow_id or ""


def only_its_own(run_id: str) -> None:
    """Refuse a call about another run: a run holds and releases its own actions only.
    The caller is the workflow that scheduled the activity, which a workflow of someone
    else's cannot claim while the run is open."""
    caller = caller_run_id()
    if caller != run_id:
        activity.logger.warning("refused: workflow %s acted for run %s", caller, run_id)
        # Retrying cannot make the caller another workflow.
        raise ApplicationError(
            f"Workflow '{caller}' may not act for run '{run_id}'.",
            type=NOT_ITS_RUN,
            non_retryable=True,
        )


def only_in_its_worker(run_id: str) -> None:
    """Refuse a call that did not come from a run's own workflow task: a local activity
    runs only in the worker that runs the workflow, so only signoff's own workflow code
    (whose `decide` validator ran first) can schedule it. A workflow of someone else's can
    schedule an activity by name on the task queue, never a local one in our worker."""
    only_its_own(run_id)
    if not activity.info().is_local:
        activity.logger.warning("refused: workflow %s called a local step remotely", run_id)
        raise ApplicationError(
            "This step runs only inside a run's own workflow task, as a local activity.",
            type=NOT_ITS_RUN,
            non_retryable=True,
        )
