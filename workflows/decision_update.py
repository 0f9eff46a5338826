"""The `decide` update's checks: a signed decision, verified by the run, then the store.

The validator (`refuse_unsigned`, `refuse_forged`, then the gate's own rules) runs only
when an update arrives, never on replay, so a rule added there leaves recorded histories
valid. It checks the signature itself against the keys the run got at its start
(`decision_keyring.py`): a forged, altered or stale decision never reaches the history.

Design note: one round trip from decision to effect. An approval whose key the run knows
needs no activity here: the store's checks (the reviewer exists, is active, of the
tenant, holds the role, did not ask for the run; the nonce counts once) are done by the
effect, in the transaction that writes the approval's audit row and the refund
(`activities/store/effect_proofs.py`, `approvers.py`). An approver the effect no longer
counts voids the approval (an audit row says why) and the action waits again, as for a
changed order. A rejection, and a decision signed with a key the run does not know (a
key rotated in after it started), still go through the `verify_decision` activity (see
`decision_check.py`) before they count: no effect follows a rejection to check it, and
an unknown key is the worker's to judge. A refused attempt is kept in the decision trail
and the caller is told why; such a decision carries the roles the store holds, not the
ones the payload claimed.

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
    keyring: RunKeyring,
    refused: Callable[[str], None],
) -> Decision:
    """The decision as the run may count it, or a refusal recorded in the trail.

    An approval the validator checked goes on as it is: its effect checks the store
    (module note). Any other is checked by the `verify_decision` activity. `refused` is
    told the refusal's event text once the gate has recorded it."""
    if decision.verdict == "approve" and keyring.knows(decision):
        # The validator checked it against the gate moments ago; checked again for a
        # replay, where validators do not run: a decision that matches nothing here
        # (a history under another run's id) is refused, and replay says where.
        gate.validate(decision)
        return decision
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
