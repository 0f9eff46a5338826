"""How a refund call becomes the `PendingAction` a reviewer decides on.

Its hash covers the exact arguments, the targets, the model's reason, the policy
version and the state the reviewer judges on; its expiry is the approval time to live,
never past the run's deadline. A run holds the amount in the store while it waits and
takes its mode (and a note) from the order's exposure.

This is workflow code: no I/O (the `hold` activity does it), time only through
`workflow.now()`.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.actions import ActionState, PendingAction
    from workflows.approval_policy import (
        APPROVAL_POLICY_VERSION,
        money,
        recomputed_hash,
        state_hash,
        with_exposure,
    )
    from workflows.contracts import RunRequest, ToolUseBlock
    from workflows.gate_store import hold
    from workflows.tool_catalog import RefundArguments


def pending_action(
    request: RunRequest,
    call: ToolUseBlock,
    arguments: RefundArguments,
    amount_minor: int,
    state: ActionState,
    supersedes: str | None,
    note: str,
) -> PendingAction:
    now = workflow.now()
    expires_at = min(now + timedelta(seconds=request.approval_ttl_seconds), request.deadline)
    unhashed = PendingAction(
        action_hash="",
        tool_use_id=call.id,
        tool=call.name,
        arguments={"amount": money(amount_minor), "currency": state.currency or ""},
        targets={"tenant_id": request.tenant_id, "order_id": state.order_id or ""},
        reason=arguments.reason,
        policy_version=APPROVAL_POLICY_VERSION,
        state=state,
        state_hash=state_hash(state),
        mode="confirm",
        required_approvals=1,
        requested_at=now,
        expires_at=expires_at,
        supersedes=supersedes,
        note=note,
    )
    # The hash the ledger computes again from the same fields (recomputed_hash).
    digest = recomputed_hash(unhashed, workflow.info().workflow_id)
    return unhashed.model_copy(update={"action_hash": digest})


async def judged_on_exposure(
    action: PendingAction, amount_minor: int, request: RunRequest
) -> PendingAction:
    """The mode on the order's exposure (judged on `action.state`), with this action's
    hold, and its inbox row, in the store."""
    pending_minor = await hold(action, request)
    return with_exposure(action, amount_minor, pending_minor)
