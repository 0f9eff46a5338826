"""What each end of the approval gate leaves behind, and the tool result it gives.

Kept apart from `approval_gate.py`, which decides *when* an action ends (denied,
rejected, expired, executed, unknown); this module says *what* that end records (the
decision trail, the effects performed or not, the effects nobody could confirm) and
the one tool result the model reads. An error result always says the effect did not
happen (or may not have) and must not be retried; the tool's hooks (`gate_hooks.py`)
say what the action is called.

This is workflow code: no I/O, and time only through `workflow.now()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.actions import DecisionKind, DecisionRecord, PendingAction
    from workflows.gate_hooks import Effect, GateHooks
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

    def _denied(self, action: PendingAction, why: str, hooks: GateHooks) -> GateResult:
        self.decisions.append(trail_record(action, "denied", reason=why))
        self.not_performed.append(f"{hooks.describe(action)}: refused by policy: {why}")
        return GateResult(
            f"Refused by policy: {why}. The {hooks.noun} did not happen. Do not retry it; tell "
            "the customer what you can do instead.",
            True,
        )

    def _rejected(self, action: PendingAction, hooks: GateHooks) -> GateResult:
        reason = next(
            (d.reason for d in reversed(self.decisions) if d.action_hash == action.action_hash),
            "",
        )
        self.not_performed.append(f"{hooks.describe(action)}: rejected by the reviewer: {reason}")
        return GateResult(
            f"Refused by the reviewer: {as_sentence(reason)} The {hooks.noun} did not happen. "
            "Do not retry; propose another way.",
            True,
        )

    def _expired(self, action: PendingAction, hooks: GateHooks) -> GateResult:
        self.not_performed.append(f"{hooks.describe(action)}: no decision before it expired")
        return GateResult(
            f"The {hooks.noun} request expired at {action.expires_at.isoformat()} without a "
            f"decision. The {hooks.noun} did not happen. Do not retry it; tell the customer a "
            "colleague will follow up.",
            True,
        )

    def _unknown(self, action: PendingAction, hooks: GateHooks) -> GateResult:
        self.unknown.append(
            UnknownEffect(
                action_hash=action.action_hash,
                tool=action.tool,
                idempotency_key=refund_key(action),
                order_id=action.targets.get("order_id") or None,
                amount=action.arguments.get("amount"),
                currency=action.arguments.get("currency") or None,
                description=hooks.describe(action),
            )
        )
        return GateResult(
            f"{hooks.noun.capitalize()} {UNKNOWN_OUTCOME_TEXT}. The effect did not answer after "
            "every retry, so it may or may not have happened. Do not retry it; tell the "
            f"customer a colleague will confirm whether the {hooks.noun} was made.",
            True,
        )

    def _executed(self, action: PendingAction, effect: Effect, hooks: GateHooks) -> GateResult:
        if effect.status == "done":
            self.effects.append(effect.effect or hooks.describe(action))
            return GateResult(effect.content, False)
        self.not_performed.append(f"{hooks.describe(action)}: {effect.message}")
        return GateResult(
            f"The {hooks.noun} did not happen: {effect.message}. Do not retry it.",
            True,
        )


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
