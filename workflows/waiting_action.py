"""One gated action's state, as one value the gate owns.

Design note. Everything the run knows about an action at the gate (the action as it
stands, with its approvals so far and how many it needs; its tool's hooks; the signed
approvals its effect will verify; whether it waits, how it ended, whether its approval
went void, the edit that took its place, when it expired; when it started to wait and
where an escalation made its approvals count afresh) is one `WaitingAction`, kept by
the gate (`approval_gate.py`) under the action's hash. It used to be ten dictionaries
keyed by that hash, seven on the gate and three on the trail recorder, written from
three modules through protocols; reading what one action's state was meant reading
them all. As temporalio's samples keep a workflow's state in one dataclass, a change
here is one value replaced: the `decide` update, expiry and escalation
(`escalation.py`), a standing rule (`standing_rules.py`) and the effect's void each
take a record and return the new one (or an outcome that carries it), and only the
gate puts it back. The trail recorder (`audit_trail.py`) reads the records, never
writes them.

In-memory only: a record never crosses the workflow boundary, so the history holds the
same commands as before it existed (the recorded histories replay unchanged). The
`state` query shows the actions of the records that wait, in the order they started
to wait (`started` moves a record to the end of the gate's table).

This is workflow code: pure, no I/O and no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from workflows.actions import Decision, DecisionRecord, PendingAction
from workflows.approval_requirements import is_complete
from workflows.gate_hooks import GateHooks

# How a waiting action ended, as the gate records it.
Resolution = Literal["approved", "rejected", "expired", "edited", "responded"]
# The mode and time an action started to wait with, for the audit's metrics and spans.
Waited = tuple[Literal["confirm", "review"], datetime]


@dataclass(frozen=True)
class WaitingAction:
    # The action as it stands: its approvals so far, roles, expiry and escalations.
    action: PendingAction
    # The tool's rules; their noun names the action in a decision's message.
    hooks: GateHooks
    # The signed approvals, in order: the effect's proof.
    proofs: tuple[Decision, ...] = ()
    # Shown by the `state` query and open to decisions, from its wait's start to its end.
    waiting: bool = False
    resolution: Resolution | None = None
    # The effect answered that its approval no longer holds; a new action replaced it.
    voided: bool = False
    # The edited action (with its editor's approval) that takes its place.
    edit: PendingAction | None = None
    # When it expired, to tell a late reviewer how long ago.
    expired_at: datetime | None = None
    waited: Waited | None = None
    # The trail's index from which the audit numbers its approvals (an escalation that
    # dropped the earlier ones moves it).
    approvals_from: int = 0

    @property
    def open(self) -> bool:
        """A reviewer may decide on it: it waits and nothing ended it yet."""
        return self.waiting and self.resolution is None

    @property
    def known(self) -> bool:
        """A reviewer may have seen it: it waits, was decided, expired or went void."""
        return self.waiting or self.resolution is not None or self.voided

    @property
    def required(self) -> int | None:
        """How many approvals it needs, once it waited (the audit numbers them)."""
        return None if self.waited is None else self.action.required_approvals

    def started(self, action: PendingAction) -> WaitingAction:
        """It waits, as `action` (held, its approvals so far); an edit whose own approval
        is all it needs is approved at once."""
        done = bool(action.approvals) and is_complete(action)
        return replace(
            self,
            action=action,
            waiting=True,
            waited=(action.mode, action.requested_at),
            resolution="approved" if done else self.resolution,
        )

    def approved_by(self, approval: DecisionRecord, proof: Decision) -> WaitingAction:
        """One more approval, and its signed proof; approved once it is all it needs."""
        action = self.action.model_copy(update={"approvals": [*self.action.approvals, approval]})
        return replace(
            self,
            action=action,
            proofs=(*self.proofs, proof),
            resolution="approved" if is_complete(action) else self.resolution,
        )

    def held_again(self, held: PendingAction) -> WaitingAction:
        """Its hold written again (an escalation): the approvals that arrived meanwhile stay."""
        return replace(self, action=held.model_copy(update={"approvals": self.action.approvals}))

    def ended(self, resolution: Resolution) -> WaitingAction:
        return replace(self, resolution=resolution)
