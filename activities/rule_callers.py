"""Whether the workflow that asks an effect to act on a standing rule is a run signoff
started, proposing what its model asked for.

Design note. A reviewer's signed decision names one run and one action: a workflow of
someone else's (anyone who reaches the Temporal frontend can run one and call
signoff's activities by name) cannot make one for itself. A standing rule names no
run: it approves any covered action of its tenant. Asking Temporal that the caller is
an `AgentRun` on this worker's task queue is not enough: anyone who reaches Temporal
can start signoff's own workflow there, with a request of their own (any ticket of the
tenant, a model that proposes a covered refund), and signoff's gate then proposes
what that model asks. So an effect asked to act on a rule's grant checks the caller as
an effect without any proof does (activities/run_provenance.py): a run signoff's
service started, with exactly the request it recorded, for the command's tenant and
ticket, whose model asked for this very action (for a refund, its amount and reason;
a rule never approves a reviewer's edit). Anything else, and a caller Temporal does not
describe, is refused: the rule does not apply, the effect writes a `refused` audit
row saying why, and the action waits for a reviewer.

The check reads the calling run's history, so it is made only for an action that
carries a rule's grant. The match, made by the hold that starts an action's wait
(activities/hold_rules.py), does not make it: only the run's own workflow task can
call the refund's hold, a generic tool's hold asks `foreign_caller` (below), its answer
is a proposal the effect checks again, and reading the history there too would cost a
second read for each covered action.

The generic tools' inbox hold asks less (`foreign_caller`, one call to Temporal): only
signoff's own runs list an action for the reviewers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from activities.caller import NOT_ITS_RUN, caller_run_id
from activities.run_provenance import CallerUnknown, caller_start, model_asked, provenance_problem
from activities.store.started_runs import started_run_fingerprint
from workflows.actions import RefundCommand, ToolActionCommand
from workflows.contracts import WORKFLOW_NAME


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


async def rule_caller_problem(
    engine: Engine, command: RefundCommand | ToolActionCommand
) -> str | None:
    """None when the command's action carries no rule's grant, or its caller is a run
    signoff started, with the request it recorded, whose model asked for this action;
    else why the rule cannot apply."""
    action = command.action
    if action.rule_grant is None:
        return None
    try:
        start = await caller_start()
    except CallerUnknown:
        return "Temporal could not say which workflow asked, so no standing rule applies."
    caller = caller_run_id()
    stored = await asyncio.to_thread(started_run_fingerprint, engine, caller)
    problem = provenance_problem(
        start,
        run_id=caller,
        task_queue=activity.info().task_queue,
        stored_fingerprint=stored,
        tenant_id=command.tenant_id,
        ticket_id=command.ticket_id,
    )
    if problem is None and not model_asked(start, action):
        problem = (
            f"The model of run '{caller}' never asked for this {action.tool} as the "
            "action carries it"
        )
    if problem is not None:
        return (
            f"{problem}: a standing rule approves only what the model of a run signoff's "
            "service started proposed."
        )
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
