"""The refund command for an approved action: one builder for the gate and every caller.

The ledger holds each field of a command to the action it carries
(`activities/store/effect_proofs.py`); building them all from the action here keeps
the two in step. The approvers are the signers of the proofs, in order; or, for an
action a standing rule approved, the rule (`workflows/standing_rules.py`).

Pure: the run's id is an argument, so workflow code and tests can both call it.
"""

from __future__ import annotations

from workflows.actions import Decision, DecisionEvent, PendingAction, RefundCommand
from workflows.approval_policy import action_amount_minor, effect_key


def refund_command(
    action: PendingAction,
    proofs: list[Decision],
    *,
    run_id: str,
    ticket_id: str,
    actor_id: str | None,
    trail: list[DecisionEvent] | None = None,
) -> RefundCommand:
    return RefundCommand(
        run_id=run_id,
        tenant_id=action.targets["tenant_id"],
        ticket_id=ticket_id,
        order_id=action.targets["order_id"],
        amount_minor=action_amount_minor(action),
        currency=action.arguments["currency"],
        idempotency_key=effect_key(run_id, action.tool, action.action_hash),
        action_hash=action.action_hash,
        expected_state_hash=action.state_hash,
        approvers=list(dict.fromkeys(proof.reviewer_id for proof in proofs))
        or ([action.rule_grant.approver] if action.rule_grant is not None else []),
        reason=action.reason,
        actor_id=actor_id,
        action=action,
        proofs=proofs,
        trail=trail or [],
    )
