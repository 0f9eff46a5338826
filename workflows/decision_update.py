"""The `decide` update's checks: a signed decision, verified by the run, then the store.

The validator (`refuse_unsigned`, `refuse_forged`, then the gate's own rules) runs only
when an update arrives, never on replay, so a rule added there leaves recorded histories
valid. It checks the signature itself against the keys the run got at its start
(`decision_keyring.py`): a forged, altered or stale decision never reaches the history.

Design note: one round trip from the decision to its effect, and a decision the store
refuses is refused at once. Every decision that passes the validator goes through the
`verify_decision` local activity (`decision_check.py`) before it counts: the reviewer
exists, is active, belongs to the run's tenant, holds the role and did not ask for the
run, and the nonce counts once. As a local activity it runs in the worker that holds the
workflow task: the update's answer and the refund's ScheduleActivityTask leave in the
same workflow-task completion, so from the decision to the ledger is one round trip
through the server, the effect (`decision_check.py` says what its retries and the
workflow task's timeout require). An approval that went straight to its effect, with
the store's checks done only there, was tried and left: the run accepted it and the
effect voided it, so a reviewer of another tenant, or a disabled one, read "approved",
and each void raised a new action, which a sender that approves every new action
turned into a loop (the red-team evals showed both). The effect still checks
everything again in the refund's transaction, and writes the approvals' audit rows
with the refund (`activities/store/effect_trail.py`). A refused attempt is kept in the
decision trail and the caller is told why; the verified decision carries the roles the
store holds, not the ones the payload claimed. A decision the validator refuses never
reaches the history: the decision service that sent it writes its `refused` audit row
(`signoff/service/decision_refusals.py`).

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
    from workflows.refusal_kinds import DECISION_REFUSED, REFUSED_ON_RECORD

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
        raise ApplicationError(UNSIGNED_DECISION, type=DECISION_REFUSED)
    if decision.verdict == "reject" and decision.category is None:
        raise ApplicationError(NEEDS_CATEGORY, type=DECISION_REFUSED)
    if decision.verdict != "reject" and decision.category is not None:
        raise ApplicationError(CATEGORY_ON_APPROVAL, type=DECISION_REFUSED)


def refuse_forged(decision: Decision, keyring: RunKeyring) -> None:
    """Part of the update validator: a signature the run can check and that does not
    match, or a decision too old or dated ahead, never gets in (no activity runs)."""
    why = keyring.refusal(decision, workflow.info().workflow_id, workflow.now())
    if why is not None:
        raise ApplicationError(why, type=DECISION_REFUSED)


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
    action = gate.waiting_action(decision.original_hash or decision.action_hash)
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
        raise ApplicationError(proof.message, type=REFUSED_ON_RECORD)
    verified = decision.model_copy(update={"reviewer_roles": proof.reviewer_roles})
    # The run may have moved while the store checked it: another update's decision,
    # taken in the same workflow task, may have decided the action first.
    gate.validate(verified)
    return verified


def decision_event(decision: Decision, result: DecisionResult) -> str:
    """The event line a decision leaves: who, what became of it, on which action."""
    return (
        f"{decision.reviewer_id} {result.status.replace('_', ' ')}: "
        f"{result.action_hash[:12]}" + (f" ({decision.reason})" if decision.reason else "")
    )
