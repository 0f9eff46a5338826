"""What each end of the approval gate leaves behind, and the tool result it gives.

Kept apart from `approval_gate.py`, which decides *when* a refund ends (denied,
rejected, expired, executed, unknown); this module says *what* that end records (the
decision trail, the effects performed or not, the effects nobody could confirm) and
the one tool result the model reads. An error result always says the refund did not
happen (or may not have) and must not be retried.

This is workflow code: no I/O, and time only through `workflow.now()`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.actions import DecisionKind, DecisionRecord, PendingAction, RefundResult
    from workflows.gate_store import refund_key
    from workflows.unknown_effects import UNKNOWN_OUTCOME_TEXT, UnknownEffect


@dataclass
class GateResult:
    content: str
    is_error: bool


@dataclass(kw_only=True)
class GateResults:
    """The gate's records of its outcomes; `ApprovalGate` builds on it."""

    decisions: list[DecisionRecord] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)
    not_performed: list[str] = field(default_factory=list)
    unknown: list[UnknownEffect] = field(default_factory=list)

    def _denied(self, action: PendingAction, why: str) -> GateResult:
        self.decisions.append(trail_record(action, "denied", reason=why))
        self.not_performed.append(f"{describe(action)}: refused by policy: {why}")
        return GateResult(
            f"Refused by policy: {why}. The refund did not happen. Do not retry it; tell the "
            "customer what you can do instead.",
            True,
        )

    def _rejected(self, action: PendingAction) -> GateResult:
        reason = next(
            (d.reason for d in reversed(self.decisions) if d.action_hash == action.action_hash),
            "",
        )
        self.not_performed.append(f"{describe(action)}: rejected by the reviewer: {reason}")
        return GateResult(
            f"Refused by the reviewer: {as_sentence(reason)} The refund did not happen. Do not "
            "retry; propose another way.",
            True,
        )

    def _expired(self, action: PendingAction) -> GateResult:
        self.not_performed.append(f"{describe(action)}: no decision before it expired")
        return GateResult(
            f"The refund request expired at {action.expires_at.isoformat()} without a decision. "
            "The refund did not happen. Do not retry it; tell the customer a colleague will "
            "follow up.",
            True,
        )

    def _unknown(self, action: PendingAction) -> GateResult:
        self.unknown.append(
            UnknownEffect(
                action_hash=action.action_hash,
                tool=action.tool,
                idempotency_key=refund_key(action),
                order_id=action.targets.get("order_id") or None,
                amount=action.arguments.get("amount"),
                currency=action.arguments.get("currency") or None,
                description=describe(action),
            )
        )
        return GateResult(
            f"Refund {UNKNOWN_OUTCOME_TEXT}. The ledger did not answer after every "
            "retry, so it may or may not have happened. Do not retry it; tell the customer "
            "a colleague will confirm whether the refund was made.",
            True,
        )

    def _executed(self, action: PendingAction, result: RefundResult) -> GateResult:
        if result.status == "refunded":
            self.effects.append(f"{describe(action)} (refund {result.refund_id})")
            return GateResult(
                json.dumps(
                    {
                        "status": "refunded",
                        "refund_id": result.refund_id,
                        "order_id": action.targets["order_id"],
                        "amount": action.arguments["amount"],
                        "currency": action.arguments["currency"],
                        "approved_by": [a.reviewer_id for a in action.approvals],
                    }
                ),
                False,
            )
        self.not_performed.append(f"{describe(action)}: {result.message}")
        return GateResult(
            f"The refund did not happen: {result.message}. Do not retry it.",
            True,
        )


def describe(action: PendingAction) -> str:
    amount = " ".join(filter(None, (action.arguments["amount"], action.arguments["currency"])))
    return f"refund {amount} on order {action.targets['order_id'] or '(none)'}"


def as_sentence(text: str) -> str:
    """A reviewer's words as one sentence: `no photo` and `No photo.` both end in one stop."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def trail_record(
    action: PendingAction, kind: DecisionKind, *, reviewer_id: str | None = None, reason: str = ""
) -> DecisionRecord:
    """A line of the decision trail, with what the action was about."""
    return DecisionRecord(
        action_hash=action.action_hash,
        kind=kind,
        reviewer_id=reviewer_id,
        at=workflow.now(),
        reason=reason,
        order_id=action.targets.get("order_id") or None,
        amount=action.arguments.get("amount"),
        currency=action.arguments.get("currency") or None,
    )
