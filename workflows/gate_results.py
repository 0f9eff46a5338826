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

import json
from dataclasses import dataclass, field

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.action_edits import edit_summary
    from workflows.actions import DecisionKind, DecisionRecord, PendingAction, RejectCategory
    from workflows.gate_hooks import Effect, GateHooks
    from workflows.gate_store import refund_key
    from workflows.reject_reasons import FRAUD, LABELS, MAY_PROPOSE, NEXT_STEP
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
    # Set when a reviewer rejected for suspected fraud: the run ends after this turn.
    fraud: str | None = None

    def _denied(self, action: PendingAction, why: str, hooks: GateHooks) -> GateResult:
        self.decisions.append(trail_record(action, "denied", reason=why))
        self.not_performed.append(f"{hooks.describe(action)}: refused by policy: {why}")
        return GateResult(
            f"Refused by policy: {why}. The {hooks.noun} did not happen. Do not retry it; tell "
            "the customer what you can do instead.",
            True,
        )

    def _rejected(self, action: PendingAction, hooks: GateHooks) -> GateResult:
        record = next(
            (d for d in reversed(self.decisions) if d.action_hash == action.action_hash),
            None,
        )
        reason = "" if record is None else record.reason
        # A rejection recorded before categories existed counts as `other`.
        category: RejectCategory = (record.category if record else None) or "other"
        label = LABELS[category]
        self.not_performed.append(
            f"{hooks.describe(action)}: rejected by the reviewer ({label}): {reason}"
        )
        if category == FRAUD:
            self.fraud = f"{hooks.describe(action)}: rejected as suspected fraud: {reason}"
        may = "yes" if MAY_PROPOSE[category] else "no"
        return GateResult(
            f"Rejected by the reviewer: the {hooks.noun} did not happen. Category: {label}. "
            f"The reviewer's words: {as_sentence(reason)} May you propose something else: "
            f"{may}. {NEXT_STEP[category]}",
            True,
        )

    def _responded(self, action: PendingAction, hooks: GateHooks) -> GateResult:
        """A reviewer answered instead of deciding: not a refusal (no category), an
        instruction the model follows before it proposes anything again."""
        record = next(
            (d for d in reversed(self.decisions) if d.action_hash == action.action_hash),
            None,
        )
        words = "" if record is None else record.reason
        self.not_performed.append(
            f"{hooks.describe(action)}: the reviewer responded instead of deciding: {words}"
        )
        return GateResult(
            f"A reviewer answered instead of deciding: the {hooks.noun} did not happen as "
            f"proposed. The reviewer's instruction: {as_sentence(words)} Do what it says "
            f"first; you may propose the {hooks.noun} again afterwards if it still applies.",
            True,
        )

    def _expired(self, action: PendingAction, hooks: GateHooks) -> GateResult:
        self.not_performed.append(f"{hooks.describe(action)}: no decision in time")
        # Not a refusal: no reviewer judged it, so the model must not read it as a "no".
        return GateResult(
            f"No decision in time: no reviewer decided on the {hooks.noun} before it expired "
            f"at {action.expires_at.isoformat()}. The {hooks.noun} did not happen. Do not "
            "retry it; tell the customer a colleague will follow up.",
            True,
        )

    def _edit_reason(self, action: PendingAction) -> str:
        return next(
            (
                d.reason
                for d in self.decisions
                if d.action_hash == action.action_hash
                and d.kind == "approved"
                and d.reviewer_id == action.edited_by
            ),
            "",
        )

    def _unknown(self, action: PendingAction, hooks: GateHooks) -> GateResult:
        self.unknown.append(
            UnknownEffect(
                action_hash=action.action_hash,
                tool=action.tool,
                idempotency_key=refund_key(action),
                order_id=order_of(action),
                amount=amount_of(action),
                currency=currency_of(action),
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
            if action.edited_by is not None:
                # The model proposed other arguments: it is told what was done instead.
                told = (
                    f"approved with changes: {edit_summary(action)}; reason: "
                    f"{self._edit_reason(action)}"
                )
                return GateResult(with_review(told, effect.content), False)
            return GateResult(effect.content, False)
        self.not_performed.append(f"{hooks.describe(action)}: {effect.message}")
        return GateResult(
            f"The {hooks.noun} did not happen: {effect.message}. Do not retry it.",
            True,
        )


def with_review(told: str, content: str) -> str:
    """The effect's result with what the reviewer changed: a JSON object gains a `review`
    key first (a reader of its fields still finds them), any other result a first line."""
    try:
        document = json.loads(content)
    except ValueError:
        document = None
    if isinstance(document, dict):
        return json.dumps({"review": told, **document})
    return f"{told}\n{content}"


def as_sentence(text: str) -> str:
    """A reviewer's words as one sentence: `no photo` and `No photo.` both end in one stop."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def trail_record(
    action: PendingAction,
    kind: DecisionKind,
    *,
    reviewer_id: str | None = None,
    reason: str = "",
    category: RejectCategory | None = None,
) -> DecisionRecord:
    """A line of the decision trail, with what the action was about."""
    return DecisionRecord(
        action_hash=action.action_hash,
        kind=kind,
        reviewer_id=reviewer_id,
        at=workflow.now(),
        reason=reason,
        order_id=order_of(action),
        amount=amount_of(action),
        currency=currency_of(action),
        category=category,
    )


# The order, amount and currency a record names: the action's exposure, as its tool's
# policy declares it; none at all for an action without one, whatever its arguments
# are called (`workflows/exposure.py`).
def order_of(action: PendingAction) -> str | None:
    return None if action.exposure is None else action.exposure.order_id


def amount_of(action: PendingAction) -> str | None:
    return None if action.exposure is None else action.exposure.amount


def currency_of(action: PendingAction) -> str | None:
    return None if action.exposure is None else action.exposure.currency
