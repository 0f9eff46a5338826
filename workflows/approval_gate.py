"""The approval gate: an irreversible call waits here for a decision bound to its hash.

Design note. Any irreversible call becomes a `PendingAction` whose hash covers the tool,
its normalized arguments, the targets, the model's reason, the policy version and the
state the reviewer judges on. The `decide` update's validator refuses, before anything
reaches history, a hash that is not pending, an expired action, a reviewer without one
of its roles, of another tenant, the run's actor, the same reviewer twice, or one its
next step does not accept (N of M, chains: `approval_requirements.py`). Expiry is a
durable timer; the policy may escalate instead (`gate_expiry.py`). After approval the
effect verifies the signed approvals itself and re-checks what it depends on; when it
answers that the approval went void (the refund's order changed, an approver no longer
counts) a new pending action (new hash) is raised, saying why. Every outcome of the gate
is one tool result: an error result says the effect did not happen and must not be
retried.

Tools differ by their hooks (`gate_hooks.py`): the refund's order state, exposure four
eyes and ledger (`refund_hooks.py`), or the profile's policy and the tool's own function
(`tool_gate.py`). Pending actions: `gate_actions.py`; outcomes: `gate_results.py`. This is
workflow code: no I/O, and time only through `workflow.now()` and timers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.action_edits import edited_action
    from workflows.actions import Decision, DecisionRecord, DecisionResult, PendingAction
    from workflows.approval_policy import DecisionRefused, check_decision, expired_message
    from workflows.approval_requirements import is_complete, next_step_refusal, recorded_message
    from workflows.audit_trail import TrailRecorder
    from workflows.contracts import RunRequest, ToolUseBlock
    from workflows.gate_effect import execute_with_trail
    from workflows.gate_expiry import Resolution, wait_or_escalate
    from workflows.gate_hooks import Effect, GateHooks
    from workflows.gate_results import GateResult, GateResults, trail_record
    from workflows.refusal_kinds import DECISION_REFUSED, NOT_PENDING, UNKNOWN_ACTION
    from workflows.reviewer_notices import ReviewerNotices
    from workflows.standing_rules import rule_approval
    from workflows.write_order import NoOrder, WriteTurn


@dataclass
class ApprovalGate(GateResults):
    """Holds each irreversible call until its decision; the records live in GateResults."""

    request: RunRequest
    # Called with a line of progress whenever the set of pending actions changes.
    notify: Callable[[str], None] = lambda text: None
    # Says why the run may no longer spend (a budget is used up), or None when it may.
    over_budget: Callable[[], str | None] = lambda: None
    pending: dict[str, PendingAction] = field(default_factory=dict)
    resolutions: dict[str, Resolution] = field(default_factory=dict)
    voided: set[str] = field(default_factory=set)
    # The signed approvals of each action, in order: the effect's proof.
    proofs: dict[str, list[Decision]] = field(default_factory=dict)
    # The edited action that takes the place of each action a reviewer edited.
    edits: dict[str, PendingAction] = field(default_factory=dict)
    # Each action's tool hooks: what it is called, for the messages of its decisions.
    hooks: dict[str, GateHooks] = field(default_factory=dict)
    # When each expired action expired, to tell a late reviewer how long ago.
    expiries: dict[str, datetime] = field(default_factory=dict)
    # Writes the trail to the store's audit table.
    recorder: TrailRecorder = field(init=False)
    # Tells reviewers when an action waits, when the worker says to.
    notices: ReviewerNotices = field(default_factory=ReviewerNotices)

    def __post_init__(self) -> None:
        self.recorder = TrailRecorder(self.request, self.decisions)

    @property
    def waiting(self) -> bool:
        return bool(self.pending)

    # --- the update ----------------------------------------------------------------

    def validate(self, decision: Decision) -> None:
        """The update validator: raise to refuse, write nothing."""
        digest = decision.original_hash or decision.action_hash
        action = self.pending.get(digest)
        if action is None or digest in self.resolutions:
            raise self._not_pending(digest)
        try:
            if decision.original_hash is not None or decision.edits is not None:
                self._edited(action, decision)
                # An approval of the original does not count for its edit: only the
                # edit's own approvals do, so the original's approvers may edit too.
                action = action.model_copy(update={"approvals": []})
            check_decision(
                action,
                decision,
                run_tenant=self.request.tenant_id,
                run_actor=self.request.actor_id,
                now=workflow.now(),
            )
            if decision.verdict == "approve":
                # N of M, one from a role, a chain's order (approval_requirements.py).
                why = next_step_refusal(action, decision.reviewer_id, decision.reviewer_roles)
                if why is not None:
                    raise DecisionRefused(why)
        except DecisionRefused as refused:
            raise ApplicationError(str(refused), type=DECISION_REFUSED) from None

    def _edited(self, original: PendingAction, decision: Decision) -> PendingAction:
        """The edited action the decision approves; DecisionRefused when it does not
        match what was signed, or the edit is not allowed."""
        if decision.original_hash is None or decision.edits is None:
            raise DecisionRefused("An edit names both the original action and its edits.")
        if decision.verdict != "approve":
            raise DecisionRefused("Only an approval carries edits; reject the request as it is.")
        if not decision.reason.strip():
            raise DecisionRefused("Say why you changed it: the agent is told your reason.")
        edited = edited_action(
            original,
            decision.edits,
            editor=decision.reviewer_id,
            run_id=workflow.info().workflow_id,
        )
        if edited.action_hash != decision.action_hash:
            raise DecisionRefused(
                "The decision's hash is not the hash of the edited action; open the request "
                "again and edit it there."
            )
        return edited

    def decide(self, decision: Decision) -> DecisionResult:
        if decision.original_hash is not None:
            return self._decide_edit(decision)
        action = self.pending[decision.action_hash]
        kind: Literal["approved", "rejected"] = (
            "approved" if decision.verdict == "approve" else "rejected"
        )
        record = trail_record(
            action,
            kind,
            reviewer_id=decision.reviewer_id,
            reason=decision.reason,
            category=(decision.category or "other") if kind == "rejected" else None,
        )
        self.decisions.append(record)
        self.recorder.signed[len(self.decisions) - 1] = decision  # the audit writes it
        if kind == "rejected":
            self.resolutions[action.action_hash] = "rejected"
            return DecisionResult(
                action_hash=action.action_hash,
                status="rejected",
                message=(
                    f"Rejected. The {self._noun(action)} will not happen, and the agent is "
                    "told why."
                ),
            )
        if action.one_from is not None or action.chain:
            # The roles the store verified: what a role's or a chain's step counts on.
            record = record.model_copy(update={"roles": list(decision.reviewer_roles)})
            self.decisions[-1] = record
        action = action.model_copy(update={"approvals": [*action.approvals, record]})
        self.pending[action.action_hash] = action
        # The signed decision itself goes to the effect, which verifies it again.
        self.proofs.setdefault(action.action_hash, []).append(decision)
        if not is_complete(action):
            return DecisionResult(
                action_hash=action.action_hash,
                status="approval_recorded",
                message=recorded_message(action),
            )
        self.resolutions[action.action_hash] = "approved"
        return DecisionResult(
            action_hash=action.action_hash,
            status="approved",
            message=f"Approved. The {self._noun(action)} is carried out once, after a last check.",
        )

    def _decide_edit(self, decision: Decision) -> DecisionResult:
        """The original ends as `edited`; the edited action, with this approval as its
        first, waits in its place (the gate judges its mode on its own arguments)."""
        assert decision.original_hash is not None
        original = self.pending[decision.original_hash]
        edited = self._edited(original, decision)
        self.decisions.append(
            trail_record(
                original,
                "edited",
                reviewer_id=decision.reviewer_id,
                reason=f"{edited.note} {decision.reason}",
            )
        )
        approval = trail_record(
            edited, "approved", reviewer_id=decision.reviewer_id, reason=decision.reason
        )
        if edited.one_from is not None or edited.chain:
            approval = approval.model_copy(update={"roles": list(decision.reviewer_roles)})
        self.decisions.append(approval)
        self.recorder.signed[len(self.decisions) - 1] = decision
        self.proofs[edited.action_hash] = [decision]
        self.hooks[edited.action_hash] = self.hooks[original.action_hash]
        self.edits[original.action_hash] = edited.model_copy(update={"approvals": [approval]})
        self.resolutions[original.action_hash] = "edited"
        return DecisionResult(
            action_hash=edited.action_hash,
            status="edited",
            message=(
                f"Approved with changes. The edited {self._noun(original)} is checked again "
                "and carried out once; if its amount still needs four eyes, a second "
                "reviewer must approve the edited version."
            ),
        )

    def _noun(self, action: PendingAction) -> str:
        hooks = self.hooks.get(action.action_hash)
        return "action" if hooks is None else hooks.noun

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

    def _not_pending(self, digest: str) -> ApplicationError:
        known = digest in self.pending or digest in self.resolutions or digest in self.voided
        kind = NOT_PENDING if known else UNKNOWN_ACTION
        return ApplicationError(self._why_not_pending(digest), type=kind)

    def _why_not_pending(self, digest: str) -> str:
        if digest in self.voided:
            return "This request changed since you opened it; review the new version."
        resolution = self.resolutions.get(digest)
        if resolution == "expired":
            return expired_message(self.expiries[digest], workflow.now())
        if resolution == "edited":
            edited = self.edits[digest]
            return (
                f"This request was edited by {edited.edited_by}; decide on the edited version "
                f"({edited.action_hash})."
            )
        if resolution is not None:
            return f"This request was already decided ({resolution})."
        return "No pending request has this hash in this run; it may have been decided already."

    # --- the gate ------------------------------------------------------------------

    async def gate(
        self, call: ToolUseBlock, hooks: GateHooks, turn: WriteTurn | NoOrder | None = None
    ) -> GateResult:
        """One irreversible call, from proposal to its one result; the tool's own rules
        are its hooks (`gate_hooks.py`). `turn` orders its effect among the turn's
        other writes (`write_order.py`)."""
        turn = turn or NoOrder()
        prepared = await hooks.prepare(call)
        state = prepared.state
        supersedes: str | None = None
        note = ""
        edited: PendingAction | None = None
        while True:
            if edited is None:
                action = hooks.action(call, prepared, state, supersedes, note)
            else:  # a reviewer's edit takes the original's place, hold and all
                action, supersedes, edited = edited, edited.supersedes, None
            self.hooks[action.action_hash] = hooks
            mode, why = hooks.mode(action)
            if mode == "deny":
                denied = self._denied(action, why, hooks)
                await self.recorder.flush()
                return await self._released(denied, supersedes, hooks)
            if mode == "auto":  # the profile lets it run without a reviewer
                await turn.before_effect()
                effect = await hooks.execute(action, [], [])
                turn.after_effect()
                return await self._carried_out(action, hooks, None, effect)
            action = await hooks.hold(action)
            turn.waiting()
            # The approvals recorded while it waited travel on, naming the reviewers.
            try:
                action, resolution = await self._await_decision(action, hooks)
            except asyncio.CancelledError:
                # The run ends (cancelled, or its deadline): its hold would otherwise
                # count until it expired.
                await hooks.release(action.action_hash)
                raise
            held = action.action_hash
            if resolution == "edited":
                edited = self.edits[held]
                continue
            if resolution == "rejected":
                return await self._released(self._rejected(action, hooks), held, hooks)
            if resolution == "expired":
                return await self._released(self._expired(action, hooks), held, hooks)
            spent = self.over_budget()
            if spent is not None:
                await self.recorder.flush()  # no effect follows to write the approvals
                refused = Effect(status="refused", message=f"the run {spent}")
                return await self._released(self._executed(action, refused, hooks), held, hooks)
            await turn.before_effect()
            proofs = self.proofs.get(action.action_hash, [])
            effect = await execute_with_trail(self.recorder, action, hooks, proofs)
            turn.after_effect()
            # An approver who no longer counts voids the approval like a changed state.
            if (
                effect is not None
                and effect.status in ("state_changed", "approver_invalid")
                and effect.state is not None
            ):
                self.voided.add(action.action_hash)
                self.decisions.append(trail_record(action, "voided", reason=effect.message))
                await self.recorder.flush()
                supersedes, note, state = action.action_hash, effect.message, effect.state
                continue
            return await self._carried_out(action, hooks, held, effect)

    async def _carried_out(
        self,
        action: PendingAction,
        hooks: GateHooks,
        held: str | None,
        effect: Effect | None,
    ) -> GateResult:
        """The result of an action that reached its effect."""
        if effect is None:  # the effect never answered: a person must check
            return await self._released(self._unknown(action, hooks), held, hooks)
        if effect.released:
            held = None
        return await self._released(self._executed(action, effect, hooks), held, hooks)

    async def _released(self, result: GateResult, held: str | None, hooks: GateHooks) -> GateResult:
        if held is not None:
            await hooks.release(held)
        return result

    async def _await_decision(
        self, action: PendingAction, hooks: GateHooks
    ) -> tuple[PendingAction, Resolution]:
        if (ruled := await rule_approval(self, action)) is not None:
            return ruled, "approved"  # by an administrator's standing rule
        digest = action.action_hash
        self.pending[digest] = action
        self.notify(
            f"{hooks.describe(action)} waits for {action.required_approvals} approval(s); "
            f"hash {digest}, expires {action.expires_at.isoformat()}"
        )
        self.recorder.required[digest] = action.required_approvals
        self.recorder.waited[digest] = (action.mode, action.requested_at)
        self.notices.watch(
            self.request, lambda: self.pending.get(digest), lambda: self.resolutions.get(digest)
        )
        if action.approvals and is_complete(action):
            # An edit whose own approval is all it needs.
            self.resolutions[digest] = "approved"
        closing = False
        try:
            await wait_or_escalate(self, digest, action, hooks)
        except asyncio.CancelledError:
            self.decisions.append(
                trail_record(
                    action, "cancelled", reason="the run ended while waiting for a decision"
                )
            )
            self.not_performed.append(
                f"{hooks.describe(action)}: the run ended while it waited for a decision"
            )
            # An activity may start after the cancellation was delivered: the record of
            # a cancelled wait reaches the audit too.
            await self.recorder.flush()
            raise
        except GeneratorExit:
            closing = True  # the coroutine is being closed: see AgentRun.run
            raise
        finally:
            if not closing:
                # `decide` replaced the entry with a copy that holds the approvals.
                action = self.pending.pop(digest, action)
                self.notify(
                    f"{hooks.describe(action)}: {self.resolutions.get(digest, 'run ended')}"
                )
        if self.resolutions[digest] not in ("edited", "approved"):
            # An edit's records are written once its action says how many approvals
            # it needs (the gate holds it next); an approval's go with its effect.
            await self.recorder.flush()
        return action, self.resolutions[digest]
