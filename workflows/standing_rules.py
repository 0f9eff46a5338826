"""Standing rules in the gate: an action an administrator's rule covers is approved by it.

Design note. When an action starts to wait (its hold has judged how many approvals it
needs), the store is asked once whether an active rule of the run's tenant covers it,
by the hold that starts the wait (`ActionHold.match_rules`, activities/hold_rules.py),
which brings the answer with its own. Not an activity of its
own: each activity costs the worker a task and an activation of the run to resume it,
and the match needs nothing the hold does not send. The hold's activity matches only
an action a rule may approve (`rule_may_approve`); the gate judges again here, on the
action as the hold judged it, since a refund's exposure may then ask for two reviewers.
The answer is a proposal, never the proof:

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

A store that does not answer the match is not an error of the run: the hold answers
no rule, and the action waits for a reviewer, as it would without rules.

The rules take the action's record (`waiting_action.py`) and return a `RuleOutcome`:
the trail's new lines and the record approved by a rule, if one did. The gate appends
the lines, writes them to the audit and keeps the record; nothing here writes the
gate's state.

This is workflow code: no I/O; the hold's activity made the match.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.actions import DecisionRecord
    from workflows.gate_results import trail_record
    from workflows.rule_contracts import rule_may_approve
    from workflows.rule_grant import RuleMatch
    from workflows.waiting_action import WaitingAction


@dataclass(frozen=True)
class RuleOutcome:
    """What the rules made of a waiting action: the trail's new lines (shadows, and the
    rule's approval), and the record approved by a rule, or None when a reviewer decides."""

    trail: list[DecisionRecord] = field(default_factory=list)
    approved: WaitingAction | None = None


def rule_approval(record: WaitingAction, match: RuleMatch) -> RuleOutcome:
    """The record approved by a standing rule, its action carrying the grant; or none,
    when a reviewer decides (see the module note). `match` is what the action's hold
    brought; the gate writes the trail."""
    action = record.action
    if not rule_may_approve(action):
        return RuleOutcome()
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
