"""The approval gate: an irreversible call waits here for a decision bound to its hash.

Design note. A refund call becomes a `PendingAction` whose hash covers the exact
arguments, the targets, the model's reason, the policy version and the state the
reviewer judges on. The `decide` update's validator refuses, before anything reaches
history, a hash that is not pending, an expired action, a reviewer without the role, of
another tenant, the run's own actor, or the same reviewer twice. After approval the
refund activity re-checks the state hash inside its transaction; if another refund
landed meanwhile the approval is void and a new pending action (new hash) is raised,
saying why; so does an approver the ledger finds no longer counts (disabled, role or
tenant gone). Four eyes is judged on the order's exposure (see `gate_store.py`). Expiry
is a durable timer. Every outcome of the gate is one tool result:
an error result says the refund did not happen and must not be retried.

This is workflow code: no I/O, and time only through `workflow.now()` and timers.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.actions import (
        ActionState,
        Decision,
        DecisionKind,
        DecisionRecord,
        DecisionResult,
        PendingAction,
        RefundResult,
    )
    from workflows.approval_policy import (
        APPROVAL_POLICY_VERSION,
        PER_CALL_POLICY_VERSION,
        DecisionRefused,
        action_hash,
        check_decision,
        expired_message,
        exposure_note,
        money,
        refund_mode,
        second_reviewer_message,
        state_hash,
        to_minor,
    )
    from workflows.audit_trail import TrailRecorder
    from workflows.contracts import RunRequest, ToolUseBlock
    from workflows.gate_store import (
        FOUR_EYES_EXPOSURE_PATCH,
        execute,
        hold,
        read_state,
        refund_key,
        release,
    )
    from workflows.tool_catalog import RefundArguments
    from workflows.unknown_effects import UNKNOWN_OUTCOME_TEXT, UnknownEffect

Resolution = Literal["approved", "rejected", "expired"]


@dataclass
class GateResult:
    content: str
    is_error: bool


def _ignore(text: str) -> None:
    pass


def _nothing() -> None:
    pass


def _within_budget() -> str | None:
    return None


@dataclass
class ApprovalGate:
    request: RunRequest
    # Called with a line of progress whenever the set of pending actions changes.
    notify: Callable[[str], None] = _ignore
    # Says why the run may no longer spend (a budget is used up), or None when it may.
    over_budget: Callable[[], str | None] = _within_budget
    # Called when policy denies a call: a decision record with no pending action change.
    denied: Callable[[], None] = _nothing
    pending: dict[str, PendingAction] = field(default_factory=dict)
    decisions: list[DecisionRecord] = field(default_factory=list)
    resolutions: dict[str, Resolution] = field(default_factory=dict)
    voided: set[str] = field(default_factory=set)
    # When each expired action expired, to tell a late reviewer how long ago.
    expiries: dict[str, datetime] = field(default_factory=dict)
    effects: list[str] = field(default_factory=list)
    not_performed: list[str] = field(default_factory=list)
    # Writes the trail to the store's audit table (behind the "audit-store" patch).
    recorder: TrailRecorder = field(init=False)

    def __post_init__(self) -> None:
        self.recorder = TrailRecorder(self.request, self.decisions)

    unknown: list[UnknownEffect] = field(default_factory=list)

    @property
    def waiting(self) -> bool:
        return bool(self.pending)

    # --- the update ----------------------------------------------------------------

    def validate(self, decision: Decision) -> None:
        """The update validator: raise to refuse, write nothing."""
        action = self.pending.get(decision.action_hash)
        if action is None or decision.action_hash in self.resolutions:
            raise ApplicationError(self._why_not_pending(decision.action_hash), type="NotPending")
        try:
            check_decision(
                action,
                decision,
                run_tenant=self.request.tenant_id,
                run_actor=self.request.actor_id,
                now=workflow.now(),
            )
        except DecisionRefused as refused:
            raise ApplicationError(str(refused), type="DecisionRefused") from None

    def decide(self, decision: Decision) -> DecisionResult:
        action = self.pending[decision.action_hash]
        kind: Literal["approved", "rejected"] = (
            "approved" if decision.verdict == "approve" else "rejected"
        )
        record = trail_record(
            action, kind, reviewer_id=decision.reviewer_id, reason=decision.reason
        )
        self.decisions.append(record)
        if kind == "rejected":
            self.resolutions[action.action_hash] = "rejected"
            return DecisionResult(
                action_hash=action.action_hash,
                status="rejected",
                message="Rejected. The refund will not happen, and the agent is told why.",
            )
        action = action.model_copy(update={"approvals": [*action.approvals, record]})
        self.pending[action.action_hash] = action
        if len(action.approvals) < action.required_approvals:
            return DecisionResult(
                action_hash=action.action_hash,
                status="approval_recorded",
                message=second_reviewer_message(action),
            )
        self.resolutions[action.action_hash] = "approved"
        return DecisionResult(
            action_hash=action.action_hash,
            status="approved",
            message="Approved. The refund is carried out once, after a last check of the order.",
        )

    def refuse(self, decision: Decision, why: str) -> None:
        """A decide attempt that failed verification: kept in the trail, decides nothing."""
        action = self.pending.get(decision.action_hash)
        if action is not None:
            record = trail_record(action, "refused", reviewer_id=decision.reviewer_id, reason=why)
        else:
            record = DecisionRecord(
                action_hash=decision.action_hash,
                kind="refused",
                reviewer_id=decision.reviewer_id,
                at=workflow.now(),
                reason=why,
            )
        self.decisions.append(record)

    def _why_not_pending(self, digest: str) -> str:
        if digest in self.voided:
            return "This request changed since you opened it; review the new version."
        resolution = self.resolutions.get(digest)
        if resolution == "expired":
            return expired_message(self.expiries[digest], workflow.now())
        if resolution is not None:
            return f"This request was already decided ({resolution})."
        return "No pending request has this hash in this run; it may have been decided already."

    # --- the gate ------------------------------------------------------------------

    async def refund(self, call: ToolUseBlock, arguments: RefundArguments) -> GateResult:
        # Memoized for the run: all its refunds judge four eyes the same way.
        on_exposure = workflow.patched(FOUR_EYES_EXPOSURE_PATCH)
        amount_minor = to_minor(arguments.amount)
        state = await read_state(self.request)
        supersedes: str | None = None
        note = ""
        while True:
            action = self._pending_action(
                call, arguments, amount_minor, state, supersedes, note, on_exposure
            )
            mode, why = refund_mode(amount_minor, state)
            if mode == "deny":
                denied = self._denied(action, why)
                await self.recorder.flush()
                return await self._released(denied, supersedes, on_exposure)
            if on_exposure:
                action = await self._judged_on_exposure(action, amount_minor, state)
            else:
                action = action.model_copy(
                    update={"mode": mode, "required_approvals": 2 if mode == "review" else 1}
                )
            # The approvals recorded while it waited travel on: the ledger row and the
            # result name the reviewers.
            try:
                action, resolution = await self._await_decision(action)
            except asyncio.CancelledError:
                # The run ends (cancelled, or its deadline): its hold would otherwise
                # count until it expired.
                if on_exposure:
                    await release(action.action_hash)
                raise
            held: str | None = action.action_hash
            if resolution == "rejected":
                return await self._released(self._rejected(action), held, on_exposure)
            if resolution == "expired":
                return await self._released(self._expired(action), held, on_exposure)
            spent = self.over_budget()
            if spent is not None:
                refused = RefundResult(status="refused", message=f"the run {spent}")
                return await self._released(self._executed(action, refused), held, on_exposure)
            result = await execute(action, self.request)
            if result is None:  # the ledger never answered: a person must check
                return await self._released(self._unknown(action), held, on_exposure)
            # An approver who no longer counts voids the approval like a changed state;
            # runs judged per call never got that status before, and keep it final.
            voiding = ("state_changed", "approver_invalid") if on_exposure else ("state_changed",)
            if result.status not in voiding or result.state is None:
                if result.status == "refunded":
                    held = None  # its hold went in the refund's own transaction
                return await self._released(self._executed(action, result), held, on_exposure)
            self.voided.add(action.action_hash)
            self.decisions.append(trail_record(action, "voided", reason=result.message))
            await self.recorder.flush()
            supersedes, note, state = action.action_hash, result.message, result.state

    async def _judged_on_exposure(
        self, action: PendingAction, amount_minor: int, state: ActionState
    ) -> PendingAction:
        """The mode on the order's exposure, with this action's hold in the store."""
        pending_minor = await hold(action, self.request)
        mode, _ = refund_mode(amount_minor, state, pending_minor)
        why = exposure_note(amount_minor, state, pending_minor)
        return action.model_copy(
            update={
                "mode": "review" if mode == "review" else "confirm",
                "required_approvals": 2 if mode == "review" else 1,
                "pending_minor": pending_minor,
                "note": " ".join(filter(None, (action.note, why))),
            }
        )

    async def _released(
        self, result: GateResult, held: str | None, on_exposure: bool
    ) -> GateResult:
        if on_exposure and held is not None:
            await release(held)
        return result

    def _pending_action(
        self,
        call: ToolUseBlock,
        arguments: RefundArguments,
        amount_minor: int,
        state: ActionState,
        supersedes: str | None,
        note: str,
        on_exposure: bool,
    ) -> PendingAction:
        version = APPROVAL_POLICY_VERSION if on_exposure else PER_CALL_POLICY_VERSION
        normalized = {"amount": money(amount_minor), "currency": state.currency or ""}
        targets = {"tenant_id": self.request.tenant_id, "order_id": state.order_id or ""}
        digest = state_hash(state)
        now = workflow.now()
        expires_at = min(
            now + timedelta(seconds=self.request.approval_ttl_seconds), self.request.deadline
        )
        return PendingAction(
            action_hash=action_hash(
                tool=call.name,
                arguments=normalized,
                targets=targets,
                reason=arguments.reason,
                policy_version=version,
                state_digest=digest,
                run_id=workflow.info().workflow_id,
                call_id=call.id if supersedes is None else f"{call.id}/{supersedes}",
            ),
            tool_use_id=call.id,
            tool=call.name,
            arguments=normalized,
            targets=targets,
            reason=arguments.reason,
            policy_version=version,
            state=state,
            state_hash=digest,
            mode="confirm",
            required_approvals=1,
            requested_at=now,
            expires_at=expires_at,
            supersedes=supersedes,
            note=note,
        )

    async def _await_decision(self, action: PendingAction) -> tuple[PendingAction, Resolution]:
        digest = action.action_hash
        self.pending[digest] = action
        self.notify(
            f"{describe(action)} waits for {action.required_approvals} approval(s); "
            f"hash {digest}, expires {action.expires_at.isoformat()}"
        )
        self.recorder.required[digest] = action.required_approvals
        timeout = (action.expires_at - workflow.now()).total_seconds()
        try:
            if self.recorder.enabled():
                await self.recorder.wait(lambda: digest in self.resolutions, action.expires_at)
            else:  # runs from before the audit table: one timer, as they were recorded
                await workflow.wait_condition(lambda: digest in self.resolutions, timeout=timeout)
        except TimeoutError:  # the expiry timer fired first
            self.resolutions[digest] = "expired"
            self.expiries[digest] = action.expires_at
            self.decisions.append(trail_record(action, "expired"))
        except asyncio.CancelledError:
            self.decisions.append(
                trail_record(
                    action, "cancelled", reason="the run ended while waiting for a decision"
                )
            )
            self.not_performed.append(
                f"{describe(action)}: the run ended while it waited for a decision"
            )
            # An activity may start after the cancellation was delivered: the record of
            # a cancelled wait reaches the audit too.
            await self.recorder.flush()
            raise
        finally:
            # `decide` replaced the entry with a copy that holds the approvals.
            action = self.pending.pop(digest, action)
            self.notify(f"{describe(action)}: {self.resolutions.get(digest, 'run ended')}")
        await self.recorder.flush()
        return action, self.resolutions[digest]

    # --- results -------------------------------------------------------------------

    def _denied(self, action: PendingAction, why: str) -> GateResult:
        self.decisions.append(trail_record(action, "denied", reason=why))
        self.denied()
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
