"""Standing rules in the gate: an action an administrator's rule covers is approved by it.

Design note. When an action starts to wait (its hold has judged how many approvals it
needs), the gate asks the store once, through the short `match_standing_rule`
activity, whether an active rule of the run's tenant covers it
(activities/store/rule_grants.py). A separate activity rather than a field of the
hold's answer: the refund's hold and any other tool's hold are different activities
(and their answers are being reshaped), and the match needs the action as the hold
judged it. A local activity: a short read that needs no round trip through the server
(its result is a marker in the history); it holds the workflow task, so every attempt
and backoff end well inside the task's 10 s, and a read retried changes nothing. The
answer is a proposal, never the proof:

- a covered action is approved by the rule: the trail records `rule_approved`
  naming the rule and its creator, the action carries the grant (the rule's id and
  signature) to its effect, and the effect checks the rule itself and spends one of
  its uses in its own transaction. If the effect refuses the grant (revoked,
  exhausted, expired, edited, four eyes meanwhile), it answers like an approver that
  no longer counts: the gate voids the action and raises it again, and this time it
  waits for a reviewer: a rule approves an action only as first proposed, never one
  that supersedes another (a voided approval's successor, or an edit);
- shadow rules never approve: each that would have is a `rule_shadow` record, and the
  action waits for a reviewer as usual;
- a rule never applies where more than one reviewer is needed (four eyes by exposure,
  N of M above one, a role's approval, a chain).

A store that does not answer the match is not an error of the run: the action waits
for a reviewer, as it would without rules.

The rules take the action's record (`waiting_action.py`) and return a `RuleOutcome`:
the trail's new lines and the record approved by a rule, if one did. The gate appends
the lines, writes them to the audit and keeps the record; nothing here writes the
gate's state.

This is workflow code: the local activity by name, explicit timeouts, bounded retries.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from workflows.actions import DecisionRecord, PendingAction
    from workflows.cancellation import reraise_cancellation
    from workflows.contracts import RunRequest
    from workflows.gate_results import trail_record
    from workflows.local_calls import local_call
    from workflows.rule_contracts import (
        MATCH_STANDING_RULE_ACTIVITY,
        RuleMatch,
        RuleMatchRequest,
        needs_more_than_one,
    )
    from workflows.waiting_action import WaitingAction

# One attempt is a few indexed reads; every attempt with its backoffs stays well inside
# the workflow task's 10 s (see the module note).
MATCH_TIMEOUT = timedelta(seconds=2)
MATCH_SCHEDULE_TO_CLOSE = timedelta(seconds=5)
MATCH_RETRIES = RetryPolicy(
    initial_interval=timedelta(milliseconds=200), backoff_coefficient=2, maximum_attempts=3
)


@dataclass(frozen=True)
class RuleOutcome:
    """What the rules made of a waiting action: the trail's new lines (shadows, and the
    rule's approval), and the record approved by a rule, or None when a reviewer decides."""

    trail: list[DecisionRecord] = field(default_factory=list)
    approved: WaitingAction | None = None


async def rule_approval(request: RunRequest, record: WaitingAction) -> RuleOutcome:
    """The record approved by a standing rule, its action carrying the grant; or none,
    when a reviewer decides (see the module note). The gate writes the trail."""
    action = record.action
    if needs_more_than_one(action) or action.approvals or action.supersedes is not None:
        return RuleOutcome()
    match = await _match(request, action)
    trail = [
        trail_record(
            action,
            "rule_shadow",
            reviewer_id=shadow.created_by,
            reason=(
                f"standing rule {shadow.rule_id} would have approved this (created by "
                f"{shadow.created_by}); it is in shadow mode, so a reviewer decides"
            ),
        )
        for shadow in match.shadows
    ]
    grant = match.grant
    if grant is None:
        return RuleOutcome(trail)
    approved = action.model_copy(update={"rule_grant": grant})
    trail.append(
        trail_record(
            approved,
            "rule_approved",
            reviewer_id=grant.created_by,
            reason=f"approved by standing rule {grant.rule_id} (created by {grant.created_by})",
        )
    )
    return RuleOutcome(trail, replace(record, action=approved).ended("approved"))


async def _match(request: RunRequest, action: PendingAction) -> RuleMatch:
    try:
        match: RuleMatch = await local_call(
            MATCH_STANDING_RULE_ACTIVITY,
            RuleMatchRequest(
                run_id=workflow.info().workflow_id,
                tenant_id=request.tenant_id,
                ticket_id=request.ticket_id,
                action=action,
            ),
            result_type=RuleMatch,
            timeout=MATCH_TIMEOUT,
            schedule_to_close=MATCH_SCHEDULE_TO_CLOSE,
            retry_policy=MATCH_RETRIES,
        )
    except ActivityError as error:
        reraise_cancellation(error)
        return RuleMatch()  # no answer: a reviewer decides, as without rules
    return match
