"""One action waiting for a reviewer, with its run, tenant and ticket, as every face
lists it. Its own module: `signoff pending` reads it from the store and must not load
the Temporal client to do so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workflows.actions import PendingAction
from workflows.approval_policy import money
from workflows.approval_requirements import approvers, missing


@dataclass(frozen=True)
class PendingItem:
    run_id: str
    tenant_id: str
    ticket_id: str
    action: PendingAction

    def row(self) -> dict[str, Any]:
        """The flat form `signoff pending --json` prints."""
        action = self.action
        return {
            "run_id": self.run_id,
            "tenant": self.tenant_id,
            "status": "waiting_for_approval",
            "ticket": self.ticket_id,
            "action_hash": action.action_hash,
            "tool": action.tool,
            "amount": action.arguments.get("amount"),
            "currency": action.arguments.get("currency"),
            "order": action.targets.get("order_id"),
            "reason": action.reason,
            "mode": action.mode,
            "required": action.required_approvals,
            "approvals": len(action.approvals),
            "paid": money(action.state.paid_minor),
            "refunded_before": money(action.state.refunded_minor),
            "requested_at": action.requested_at.isoformat(),
            "expires_at": action.expires_at.isoformat(),
            "note": action.note,
            # Who approved, and what is still missing (N of M, a role, a chain).
            "approved_by": approvers(action),
            "still_missing": missing(action),
        }
