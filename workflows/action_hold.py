"""The exposure hold an activity receives, in either of its two shapes.

A run recorded before compact histories sends `PendingRefundHold`, whose order, hash,
amount, expiry and superseded action repeat what its `action` says; a compact run sends
`ActionHold`, the action alone (issue 13: no payload twice in a history). The store
writes one shape, so the activity and the evals read the other through `full_hold`.
"""

from __future__ import annotations

from workflows.actions import ActionHold, PendingRefundHold
from workflows.approval_policy import action_amount_minor

AnyHold = PendingRefundHold | ActionHold


def full_hold(hold: AnyHold) -> PendingRefundHold:
    """The hold with every field spelled out, read from its action when it is compact."""
    if isinstance(hold, PendingRefundHold):
        return hold
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
