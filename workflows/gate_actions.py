"""How an irreversible call becomes the `PendingAction` a reviewer decides on.

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
    from workflows.actions import REFUND_APPROVER_ROLE, ActionState, PendingAction
    from workflows.approval_policy import (
        APPROVAL_POLICY_VERSION,
        recomputed_hash,
        state_hash,
        with_exposure,
    )
    from workflows.contracts import RunRequest, ToolUseBlock
    from workflows.exposure import ActionExposure
    from workflows.gate_hooks import Held
    from workflows.gate_store import hold
    from workflows.profile_contracts import ToolPolicy


def new_action(
    request: RunRequest,
    call: ToolUseBlock,
    *,
    arguments: dict[str, str],
    targets: dict[str, str],
    reason: str,
    state: ActionState,
    policy: ToolPolicy | None,
    supersedes: str | None,
    note: str,
    exposure: ActionExposure | None = None,
) -> PendingAction:
    """The action a reviewer decides on, hashed; its mode is judged after (the tool's
    hooks). Its expiry is the shorter of the run's and the tool policy's approval time
    to live, never past the run's deadline."""
    now = workflow.now()
    ttl = timedelta(seconds=request.approval_ttl_seconds)
    if policy is not None and policy.approval_ttl is not None:
        ttl = min(ttl, policy.approval_ttl)
    unhashed = PendingAction(
        action_hash="",
        tool_use_id=call.id,
        tool=call.name,
        arguments=arguments,
        targets=targets,
        reason=reason,
        policy_version=APPROVAL_POLICY_VERSION,
        state=state,
        state_hash=state_hash(state),
        mode="confirm",
        required_approvals=1,
        approver_roles=(
            list(policy.approver_roles)
            if policy is not None and policy.approver_roles
            else [REFUND_APPROVER_ROLE]
        ),
        requested_at=now,
        expires_at=min(now + ttl, request.deadline),
        supersedes=supersedes,
        note=note,
        editable=list(policy.editable) if policy is not None else [],
        exposure=exposure,
        category_argument=None if policy is None else policy.category_argument,
    )
    # The hash every effect computes again from the same fields (recomputed_hash).
    digest = recomputed_hash(unhashed, workflow.info().workflow_id)
    return unhashed.model_copy(update={"action_hash": digest})


async def judged_on_exposure(
    action: PendingAction, amount_minor: int, request: RunRequest, match_rules: bool = False
) -> Held:
    """The mode on the order's exposure (judged on `action.state`), with this action's
    hold, and its inbox row, in the store; and the standing rules' answer when asked."""
    held = await hold(action, request, match_rules)
    return Held(with_exposure(action, amount_minor, held.pending_minor), held.rules)
