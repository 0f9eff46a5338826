"""One action waiting for a reviewer, with its run, tenant and ticket, as every face
lists it. Its own module: `signoff pending` reads it from the store and must not load
the Temporal client to do so."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

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
        exposure = action.exposure
        return {
            "run_id": self.run_id,
            "tenant": self.tenant_id,
            "status": "waiting_for_approval",
            "ticket": self.ticket_id,
            "action_hash": action.action_hash,
            "tool": action.tool,
            "arguments": action.arguments,
            # Its exposure, where its tool's policy declares one (workflows/exposure.py);
            # null, and no amount, currency or order, for any other tool.
            "exposure": None if exposure is None else exposure.model_dump(),
            "amount": None if exposure is None else exposure.amount,
            "currency": None if exposure is None else exposure.currency,
            "order": None if exposure is None else exposure.order_id,
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


class WaitingRow(Protocol):
    """A read-model row as either reader gives it (the store's, or the driver's alone)."""

    @property
    def run_id(self) -> str: ...
    @property
    def tenant_id(self) -> str: ...
    @property
    def ticket_id(self) -> str: ...
    @property
    def action(self) -> str: ...  # the PendingAction's JSON


def pending_items(rows: Iterable[WaitingRow]) -> list[PendingItem]:
    """The read model's rows as the items every face lists."""
    return [
        PendingItem(
            row.run_id, row.tenant_id, row.ticket_id, PendingAction.model_validate_json(row.action)
        )
        for row in rows
    ]
