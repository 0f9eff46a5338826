"""What expiry does to a waiting action: end it (`reject`), or escalate it to a role.

Design note. A tool's policy may say `on_expiry = "escalate"`: when the action's time
runs out unanswered, it is not ended but sent to `escalate_to` with a new time to live
(`escalation_ttl`), at most `max_escalations` times; the next expiry after the last
ends it as an expiry always did (the model is told "no decision in time").

The escalated action is the same action: its hash covers what it does and the state it
is judged on, neither of which changed, so a reviewer who opened it before still
decides on the same hash. What changes is who may decide (the escalation's role is
added to its approver roles; a chain's or `one_from`'s steps still need their own
roles), its expiry, and its count of escalations. Approvals given before the
escalation are dropped unless the policy says `keep_approvals = true`: those reviewers
let it expire half-approved, and the role it goes to decides afresh.

At expiry the gate (`approval_gate.py`) hands the action's record (`waiting_action.py`)
to `at_expiry` and gets back what changed: the record ended as expired, or escalated and
waiting again, with its trail line's reason. The gate writes the line, holds the
escalated action again (its inbox row, and a refund's exposure hold, with the new
expiry and roles) and keeps waiting.

Pure: the gate calls it with the workflow's time.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from workflows.actions import PendingAction
from workflows.tool_policy import ToolPolicy
from workflows.waiting_action import WaitingAction


@dataclass(frozen=True)
class Expiry:
    """What expiry made of a waiting action: `record` ended as expired, or escalated
    (then `reason` is its trail line's reason)."""

    record: WaitingAction
    escalated: bool
    reason: str = ""


def at_expiry(
    record: WaitingAction, now: datetime, deadline: datetime, trail_length: int
) -> Expiry:
    """The record once its action's time ran out unanswered; `trail_length` is the
    index its trail line (`expired` or `escalated`) will take."""
    policy = record.hooks.policy
    raised = escalated(record.action, policy, now, deadline)
    if raised is None or policy is None:
        return Expiry(replace(record.ended("expired"), expired_at=record.action.expires_at), False)
    changed = replace(record, action=raised)
    if not policy.keep_approvals:
        # The audit numbers its approvals again from the escalation on.
        changed = replace(changed, proofs=(), approvals_from=trail_length)
    return Expiry(changed, True, escalation_reason(raised, policy))


def escalated(
    action: PendingAction, policy: ToolPolicy | None, now: datetime, deadline: datetime
) -> PendingAction | None:
    """The action escalated once more, or None when expiry ends it (no escalation in
    the policy, every escalation used, or the run's deadline leaves no time)."""
    if policy is None or policy.on_expiry != "escalate":
        return None
    assert policy.escalate_to is not None and policy.escalation_ttl is not None
    limit = policy.max_escalations or 0
    expires_at = min(now + policy.escalation_ttl, deadline)
    if action.escalations >= limit or expires_at <= now:
        return None
    number = action.escalations + 1
    note = (
        f"No decision in time: escalated to {policy.escalate_to} (escalation {number} of {limit})."
    )
    return action.model_copy(
        update={
            "approver_roles": list(dict.fromkeys([*action.approver_roles, policy.escalate_to])),
            "expires_at": expires_at,
            "escalations": number,
            "approvals": action.approvals if policy.keep_approvals else [],
            "note": " ".join(filter(None, (action.note, note))),
        }
    )


def escalation_reason(action: PendingAction, policy: ToolPolicy) -> str:
    """The escalated record's reason: to whom, until when, which escalation."""
    kept = "kept" if policy.keep_approvals else "dropped"
    return (
        f"no decision in time; escalated to {policy.escalate_to} until "
        f"{action.expires_at.isoformat()} (escalation {action.escalations} of "
        f"{policy.max_escalations}); earlier approvals {kept}"
    )
