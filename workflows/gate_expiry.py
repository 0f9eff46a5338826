"""What expiry does to a waiting action, in the gate's wait (`approval_gate.py`).

The gate waits for a decision until the action expires. Then the tool's policy says
whether it ends (`expired`, as always) or is escalated to another role with a new
expiry (`escalation.py`): the same action keeps waiting, its escalation in the trail
and the audit, its inbox row (and a refund's exposure hold) held again with the new
expiry and roles, and its earlier approvals dropped unless the policy keeps them.

This is workflow code: no I/O; time only through `workflow.now()` and timers.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Protocol

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.actions import Decision, DecisionRecord, PendingAction
    from workflows.audit_trail import TrailRecorder
    from workflows.contracts import RunRequest
    from workflows.escalation import escalated, escalation_reason
    from workflows.gate_hooks import GateHooks
    from workflows.gate_results import trail_record

# How a waiting action ended, as the gate records it.
Resolution = Literal["approved", "rejected", "expired", "edited"]


class WaitingGate(Protocol):
    """What of the gate (`approval_gate.ApprovalGate`) the wait reads and writes."""

    request: RunRequest
    pending: dict[str, PendingAction]
    resolutions: dict[str, Resolution]
    proofs: dict[str, list[Decision]]
    expiries: dict[str, datetime]
    decisions: list[DecisionRecord]
    recorder: TrailRecorder


async def wait_or_escalate(
    gate: WaitingGate, digest: str, action: PendingAction, hooks: GateHooks
) -> None:
    """Wait for the decision; at expiry, escalate while the policy allows
    (`escalation.py`), then end the action as expired."""
    while True:
        try:
            await gate.recorder.wait(lambda: digest in gate.resolutions, action.expires_at)
            return
        except TimeoutError:  # the expiry timer fired first
            action = gate.pending.get(digest, action)
            policy = hooks.policy
            raised = escalated(action, policy, workflow.now(), gate.request.deadline)
            if raised is None or policy is None:
                gate.resolutions[digest] = "expired"
                gate.expiries[digest] = action.expires_at
                gate.decisions.append(trail_record(action, "expired"))
                return
        gate.decisions.append(
            trail_record(raised, "escalated", reason=escalation_reason(raised, policy))
        )
        if not policy.keep_approvals:
            gate.proofs.pop(digest, None)
            # The audit numbers this action's approvals again from here.
            gate.recorder.restarts[digest] = len(gate.decisions)
        gate.pending[digest] = raised
        # Its inbox row (and a refund's exposure hold) with the new expiry and roles;
        # an approval that arrived meanwhile stays.
        held = await hooks.hold(raised)
        action = held.model_copy(update={"approvals": gate.pending[digest].approvals})
        gate.pending[digest] = action
        gate.recorder.required[digest] = action.required_approvals
        await gate.recorder.flush()
