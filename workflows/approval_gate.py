"""The approval gate: an irreversible call waits here for a decision bound to its hash.

Design note. Any irreversible call becomes a `PendingAction` whose hash covers the tool,
its normalized arguments, the targets, the model's reason, the policy version and the
state the reviewer judges on. What the run knows of each action is one record
(`waiting_action.WaitingAction`) in the gate's `records`; reviewers' decisions replace
it through the `decide` update (`gate_decisions.py`), a standing rule may approve it
before anyone sees it (`standing_rules.py`), and at expiry the policy may escalate it
instead of ending it (`escalation.py`): each returns what changed, and only the gate
stores it. After approval the effect verifies the signed approvals itself and
re-checks what it depends on; when it answers that the approval went void (the
refund's order changed, an approver no longer counts) a new pending action (new hash)
is raised, saying why; a reviewer's edit likewise waits in its original's place. Every
outcome of the gate is one tool result: an error result says the effect did not happen
and must not be retried.

Tools differ by their hooks (`gate_hooks.py`): the refund's order state, exposure four
eyes and ledger (`refund_hooks.py`), or the profile's policy and the tool's own function
(`tool_gate.py`). Pending actions: `gate_actions.py`; outcomes: `gate_results.py`. This is
workflow code: no I/O, and time only through `workflow.now()` and timers.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.actions import Decision, PendingAction
    from workflows.connector_waits import EffectWaiting
    from workflows.contracts import ToolUseBlock
    from workflows.effect_waits import when_available
    from workflows.escalation import at_expiry
    from workflows.gate_decisions import GateDecisions
    from workflows.gate_effect import execute_with_trail
    from workflows.gate_hooks import Effect, GateHooks, Prepared
    from workflows.gate_results import GateResult, trail_record
    from workflows.reviewer_notices import ReviewerNotices, not_carried_out
    from workflows.rule_grant import RuleMatch
    from workflows.standing_rules import rule_approval
    from workflows.waiting_action import Resolution, WaitingAction
    from workflows.write_order import NoOrder, WriteTurn


@dataclass
class ApprovalGate(GateDecisions):
    """Holds each irreversible call until its decision; one record per action
    (`waiting_action.py`), decided on in `GateDecisions`."""

    # Called with a line of progress whenever the set of pending actions changes.
    notify: Callable[[str], None] = lambda text: None
    # Says why the run may no longer spend (a budget is used up), or None when it may.
    over_budget: Callable[[], str | None] = lambda: None
    # Tells reviewers when an action waits, when the worker says to.
    notices: ReviewerNotices = field(default_factory=ReviewerNotices)
    # Approved actions waiting for their connector, by action hash (effect_waits.py).
    effect_waits: dict[str, EffectWaiting] = field(default_factory=dict)

    @property
    def waiting(self) -> bool:
        return any(record.waiting for record in self.records.values())

    # --- the gate ------------------------------------------------------------------

    async def gate(
        self, call: ToolUseBlock, hooks: GateHooks, turn: WriteTurn | NoOrder | None = None
    ) -> GateResult:
        """One irreversible call, from proposal to its one result; the tool's own rules
        are its hooks (`gate_hooks.py`). `turn` orders its effect among the turn's
        other writes (`write_order.py`)."""
        turn = turn or NoOrder()
        prepared = await hooks.prepare(call)
        if prepared.problem:
            return await self._not_proposed(call, prepared, hooks)
        state = prepared.state
        supersedes: str | None = None
        note = ""
        edited: PendingAction | None = None
        while True:
            if edited is None:
                action = hooks.action(call, prepared, state, supersedes, note)
            else:  # a reviewer's edit takes the original's place, hold and all
                action, supersedes, edited = edited, edited.supersedes, None
            self._track(action, hooks)
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
            # Its hold, and the standing rules' answer with it (`standing_rules.py`).
            placed = await hooks.hold(action, match_rules=True)
            action = placed.action
            turn.waiting()
            # The approvals recorded while it waited travel on, naming the reviewers.
            try:
                action, resolution = await self._await_decision(action, hooks, placed.rules)
            except asyncio.CancelledError:
                # The run ends (cancelled, or its deadline): its hold would otherwise
                # count until it expired.
                await hooks.release(action.action_hash)
                raise
            held = action.action_hash
            if resolution == "edited":
                edited = self.records[held].edit
                assert edited is not None  # `decide` keeps the edit with its original
                continue
            if resolution == "rejected":
                return await self._released(self._rejected(action, hooks), held, hooks)
            if resolution == "responded":
                return await self._released(self._responded(action, hooks), held, hooks)
            if resolution == "expired":
                return await self._released(self._expired(action, hooks), held, hooks)
            spent = self.over_budget()
            if spent is not None:
                await self.recorder.flush()  # no effect follows to write the approvals
                refused = Effect(status="refused", message=f"the run {spent}")
                return await self._released(self._executed(action, refused, hooks), held, hooks)
            await turn.before_effect()
            proofs = list(self.records[action.action_hash].proofs)
            effect = await when_available(
                action,
                functools.partial(execute_with_trail, self.recorder, action, hooks, proofs),
                self.effect_waits,
                self.notify,
            )
            turn.after_effect()
            if effect is not None and effect.gave_up:
                self.decisions.append(trail_record(action, "refused", reason=effect.message))
                await self.recorder.flush()
                self._tell_not_carried_out(action, effect, proofs)
            # An approver who no longer counts voids the approval like a changed state.
            if (
                effect is not None
                and effect.status in ("state_changed", "approver_invalid")
                and effect.state is not None
            ):
                self.records[held] = replace(self.records[held], voided=True)
                self.decisions.append(trail_record(action, "voided", reason=effect.message))
                await self.recorder.flush()
                supersedes, note, state = action.action_hash, effect.message, effect.state
                continue
            return await self._carried_out(action, hooks, held, effect)

    def _tell_not_carried_out(
        self, action: PendingAction, effect: Effect, proofs: list[Decision]
    ) -> None:
        """The reviewers who approved an action the run gave up on are told, since
        someone promised the customer what did not happen."""
        assert effect.waited is not None  # every effect that gave up says what it waited for
        grant = action.rule_grant
        approved_by = [proof.reviewer_id for proof in proofs] or (
            [grant.approver] if grant is not None else []
        )
        told = not_carried_out(action, self.request, approved_by, effect.waited)
        self.notices.tell(self.request, told)

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

    async def _not_proposed(
        self, call: ToolUseBlock, prepared: Prepared, hooks: GateHooks
    ) -> GateResult:
        """A call whose arguments cannot be judged (a declared money argument that is
        not money): nothing waits on it; the model reads why and may call again, and the
        audit holds the refusal, for the action as the model asked for it."""
        action = hooks.action(call, prepared, prepared.state, None, "")
        self._track(action, hooks)
        self.decisions.append(trail_record(action, "denied", reason=prepared.problem))
        await self.recorder.flush()
        return GateResult(
            f"{prepared.problem} Nothing was proposed to a reviewer; call the tool again "
            "with a corrected value, or answer without it.",
            True,
        )

    def _track(self, action: PendingAction, hooks: GateHooks) -> None:
        """The action's record, made when the gate first meets it (an edit's was made by
        its decision), with the hooks of the call it came from."""
        record = self.records.get(action.action_hash)
        self.records[action.action_hash] = (
            WaitingAction(action, hooks) if record is None else replace(record, hooks=hooks)
        )

    def _start_waiting(self, action: PendingAction) -> WaitingAction:
        """The record waits from now, last in the table: the `state` query lists the
        waiting actions in the order they started to wait."""
        digest = action.action_hash
        record = self.records.pop(digest).started(action)
        self.records[digest] = record
        return record

    async def _await_decision(
        self, action: PendingAction, hooks: GateHooks, rules: RuleMatch
    ) -> tuple[PendingAction, Resolution]:
        digest = action.action_hash
        ruled = rule_approval(replace(self.records[digest], action=action), rules)
        self.decisions.extend(ruled.trail)
        if ruled.approved is not None:
            self.records[digest] = ruled.approved
        if ruled.trail:
            await self.recorder.flush()
        if ruled.approved is not None:
            return ruled.approved.action, "approved"  # by an administrator's standing rule
        self._start_waiting(action)
        self.notify(
            f"{hooks.describe(action)} waits for {action.required_approvals} approval(s); "
            f"hash {digest}, expires {action.expires_at.isoformat()}"
        )
        self.notices.watch(
            self.request,
            lambda: self.waiting_action(digest),
            lambda: self.records[digest].resolution,
        )
        closing = False
        try:
            await self._wait_or_escalate(digest, hooks)
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
            try:
                await self.recorder.flush()
            except GeneratorExit:
                # Closed while it flushed (a cancelled run evicted): the clause below
                # does not see an exception raised in this one.
                closing = True
                raise
            raise
        except GeneratorExit:
            closing = True  # the coroutine is being closed: see AgentRun.run
            raise
        finally:
            if not closing:
                record = replace(self.records[digest], waiting=False)
                self.records[digest] = record
                # `decide` replaced the action with a copy that holds the approvals.
                action = record.action
                self.notify(f"{hooks.describe(action)}: {record.resolution or 'run ended'}")
        resolution = self.records[digest].resolution
        assert resolution is not None
        if resolution not in ("edited", "approved"):
            # An edit's records are written once its action says how many approvals
            # it needs (the gate holds it next); an approval's go with its effect.
            await self.recorder.flush()
        return action, resolution

    async def _wait_or_escalate(self, digest: str, hooks: GateHooks) -> None:
        """Wait for the decision; at expiry, escalate while the policy allows
        (`escalation.py`), then end the action as expired."""
        while True:
            try:
                await self.recorder.wait(
                    lambda: self.records[digest].resolution is not None,
                    self.records[digest].action.expires_at,
                )
                return
            except TimeoutError:  # the expiry timer fired first
                expiry = at_expiry(
                    self.records[digest], workflow.now(), self.request.deadline, len(self.decisions)
                )
            kind: Literal["escalated", "expired"] = "escalated" if expiry.escalated else "expired"
            self.decisions.append(trail_record(expiry.record.action, kind, reason=expiry.reason))
            self.records[digest] = expiry.record
            if not expiry.escalated:
                return
            # Its inbox row (and a refund's exposure hold) with the new expiry and roles;
            # an approval that arrived meanwhile stays.
            held = (await hooks.hold(expiry.record.action)).action
            self.records[digest] = self.records[digest].held_again(held)
            await self.recorder.flush()
