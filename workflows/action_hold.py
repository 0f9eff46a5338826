"""The exposure hold the store writes, read from the hold a run sends.

A run sends `ActionHold`, the action alone: its order, hash, amount, expiry and the
action it supersedes are the action's own, so its history carries them once. The store
writes `PendingRefundHold`, every field spelled out; the activity and the evals read it
through `full_hold`.
"""

from __future__ import annotations

from workflows.actions import ActionHold, PendingRefundHold
from workflows.approval_policy import action_amount_minor


def full_hold(hold: ActionHold) -> PendingRefundHold:
    """The hold with every field spelled out, read from its action."""
    action = hold.action
    return PendingRefundHold(
        run_id=hold.run_id,
        tenant_id=hold.tenant_id,
        order_id=action.targets["order_id"],
        action_hash=action.action_hash,
        amount_minor=action_amount_minor(action),
        expires_at=action.expires_at,
        supersedes=action.supersedes,
        ticket_id=hold.ticket_id,
        action=action,
    )
