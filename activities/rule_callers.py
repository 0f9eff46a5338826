"""Whether the workflow that asks an effect to act on a standing rule is signoff's own run.

Design note. A reviewer's signed decision names one run and one action: a workflow of
someone else's (anyone who reaches the Temporal frontend can run one and call
signoff's activities by name) cannot make one for itself. A standing rule names no
run: it approves any covered action of its tenant. So an effect asked to act on a rule
asks Temporal who called it: the caller must be an `AgentRun` that runs on this
worker's task queue, that is signoff's own workflow code on signoff's workers, which
proposes only what its gate judged. A workflow of another type, or on a task queue of
its own, is refused, and so is a caller Temporal does not describe (the rule then does
not apply and the action waits for a reviewer). The check costs one call to Temporal,
made only for an action that carries a rule's grant. The generic tools' inbox hold asks
the same (`foreign_caller`): only signoff's own runs list an action for the reviewers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from temporalio import activity
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from activities.caller import NOT_ITS_RUN
from workflows.actions import PendingAction
from workflows.contracts import WORKFLOW_NAME


class CallerUnknown(Exception):
    """Temporal could not describe the workflow that called this activity."""


async def foreign_caller() -> str | None:
    """None when the workflow that called this activity is an `AgentRun` on this
    worker's task queue; else what it is. Raises CallerUnknown when Temporal cannot say."""
    info = activity.info()
    try:
        handle = activity.client().get_workflow_handle(
            info.workflow_id or "", run_id=info.workflow_run_id
        )
        described = await handle.describe()
    except (RPCError, RuntimeError):
        raise CallerUnknown from None
    if described.workflow_type != WORKFLOW_NAME or described.task_queue != info.task_queue:
        return (
            f"Workflow '{info.workflow_id}' ({described.workflow_type} on task queue "
            f"'{described.task_queue}') is not one of signoff's runs"
        )
    return None


async def rule_caller_problem(action: PendingAction) -> str | None:
    """None when `action` carries no rule's grant, or its caller is signoff's own run
    on this worker's task queue; else why the rule cannot apply."""
    if action.rule_grant is None:
        return None
    try:
        foreign = await foreign_caller()
    except CallerUnknown:
        return "Temporal could not say which workflow asked, so no standing rule applies."
    if foreign is not None:
        return f"{foreign}: a standing rule approves only the actions signoff's own runs propose."
    return None


async def only_signoffs_run(
    asked: str, why: str, callers: Callable[[], Awaitable[str | None]] = foreign_caller
) -> None:
    """Refuse (`NotItsRun`, on the audit through activities/refusal_audit.py) a caller
    that is not signoff's own run on this worker's task queue; `asked` says what it asked
    ("to list this action"), `why` why only a run may ("only a run's own gate lists its
    actions for the reviewers"). Retryable while Temporal cannot say who called."""
    try:
        foreign = await callers()
    except CallerUnknown:
        # Retryable: Temporal will say on a later attempt.
        raise ApplicationError(f"Temporal could not say which workflow asked {asked}.") from None
    if foreign is not None:
        activity.logger.warning("refused %s: %s", asked, foreign)
        raise ApplicationError(f"{foreign}: {why}.", type=NOT_ITS_RUN, non_retryable=True)
