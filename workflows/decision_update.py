"""The `decide` update's checks: a signed decision, verified by the run, then the store.

The validator (`refuse_unsigned`, `refuse_forged`, then the gate's own rules) runs only
when an update arrives, never on replay, so a rule added there leaves recorded histories
valid. It checks the signature itself against the keys the run got at its start
(`decision_keyring.py`): a forged, altered or stale decision never reaches the history.

Design note: a decision the store refuses is refused at once. Every decision that
passes the validator goes through the `verify_decision` activity (`decision_check.py`)
before it counts: the reviewer exists, is active, belongs to the run's tenant, holds
the role and did not ask for the run, and the nonce counts once. An approval that went
straight to its effect (the store's checks done there) would have been accepted by the
run and then voided at the effect: a reviewer of another tenant, or a disabled one,
would see "approved", and each such approval would raise a new action, which a sender
that approves every new action turns into a loop (the red-team evals showed both). The
effect still checks everything again in the refund's transaction, and writes the
approvals' audit rows with the refund (`activities/store/effect_trail.py`): from the
decision to the ledger is two round trips, the update's check and the effect. A refused
attempt is kept in the decision trail and the caller is told why; the verified decision
carries the roles the store holds, not the ones the payload claimed.

This is workflow code: no I/O; the activities do it.
"""

from __future__ import annotations

from collections.abc import Callable

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.actions import Decision, DecisionResult
    from workflows.approval_gate import ApprovalGate
    from workflows.contracts import RunRequest
    from workflows.decision_check import DecisionCheck, verify
    from workflows.decision_keyring import RunKeyring

UNSIGNED_DECISION = (
    "This decision carries no proof of who made it. Decide in the reviewer UI, or with "
    "`signoff approve`/`signoff reject` and your password."
)
NEEDS_CATEGORY = (
    "A category is required to reject: wrong_amount, not_eligible, "
    "needs_more_information, suspected_fraud or other."
)
CATEGORY_ON_APPROVAL = "A category goes with a rejection, not with an approval."


def refuse_unsigned(decision: Decision) -> None:
    """Part of the update validator: a decision without a signature never gets in, nor
    a rejection without its category (the model is told it), nor an approval with one.

    Here, not in the gate's rules that the handler checks again: decisions recorded
    before categories existed carry none, and must replay."""
    if decision.signature is None:
        raise ApplicationError(UNSIGNED_DECISION, type="DecisionRefused")
    if decision.verdict == "reject" and decision.category is None:
        raise ApplicationError(NEEDS_CATEGORY, type="DecisionRefused")
    if decision.verdict == "approve" and decision.category is not None:
        raise ApplicationError(CATEGORY_ON_APPROVAL, type="DecisionRefused")


def refuse_forged(decision: Decision, keyring: RunKeyring) -> None:
    """Part of the update validator: a signature the run can check and that does not
    match, or a decision too old or dated ahead, never gets in (no activity runs)."""
    why = keyring.refusal(decision, workflow.info().workflow_id, workflow.now())
    if why is not None:
        raise ApplicationError(why, type="DecisionRefused")


async def verified(
    decision: Decision,
    request: RunRequest,
    gate: ApprovalGate,
    refused: Callable[[str], None],
) -> Decision:
    """The decision as the store vouches for it, or a refusal recorded in the trail
    (module note). `refused` is told the refusal's event text once the gate has
    recorded it."""
    update = workflow.current_update_info()
    action = gate.pending.get(decision.original_hash or decision.action_hash)
    proof = await verify(
        DecisionCheck(
            run_id=workflow.info().workflow_id,
            run_tenant_id=request.tenant_id,
            run_actor_id=request.actor_id,
            update_id=update.id if update else "",
            decision=decision,
            now=workflow.now(),
            approver_roles=[] if action is None else list(action.approver_roles),
        )
    )
    if not proof.accepted:
        gate.refuse(decision, proof.message)
        refused(f"refused a decision for {decision.reviewer_id}: {proof.message}")
        raise ApplicationError(proof.message, type="DecisionRefused")
    verified = decision.model_copy(update={"reviewer_roles": proof.reviewer_roles})
    # The run may have moved while the activity ran (another decision, an expiry).
    gate.validate(verified)
    return verified


def decision_event(decision: Decision, result: DecisionResult) -> str:
    """The event line a decision leaves: who, what became of it, on which action."""
    return (
        f"{decision.reviewer_id} {result.status.replace('_', ' ')}: "
        f"{result.action_hash[:12]}" + (f" ({decision.reason})" if decision.reason else "")
    )
