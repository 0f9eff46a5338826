"""The refund tool's rules, as the gate's hooks (see `gate_hooks.py`).

The refund is judged on its order: the state is what was paid and refunded (read by an
activity), a refund above what remains refundable is denied, four eyes is judged on
the order's cumulative exposure (refunded + pending + this call, `gate_store.py`), the
hold counts the amount in that exposure, and the effect is the ledger's refund, which
verifies its proofs itself (`activities/store/effect_proofs.py`).

The profile's policy sets who approves (`approver_roles`), how long an approval may
wait (`approval_ttl`) and may deny every refund or ask two reviewers for each one
(`review`); `confirm` keeps the exposure rule. A refund cannot be `auto`: the ledger
refunds only on signed approvals, so `auto` is judged as `confirm`.

This is workflow code: no I/O (the activities do it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.actions import (
        ActionState,
        ApprovalMode,
        Decision,
        DecisionEvent,
        PendingAction,
    )
    from workflows.approval_policy import action_amount_minor, money, refund_mode, to_minor
    from workflows.approval_requirements import with_policy
    from workflows.contracts import RunRequest, ToolUseBlock
    from workflows.exposure import ActionExposure
    from workflows.gate_actions import judged_on_exposure, new_action
    from workflows.gate_hooks import Effect, Held, Prepared
    from workflows.gate_store import execute, read_state, release
    from workflows.profile_contracts import ToolPolicy
    from workflows.tool_catalog import REFUND, RefundArguments, parse_arguments


@dataclass
class RefundHooks:
    request: RunRequest
    policy: ToolPolicy | None = None
    noun: str = "refund"
    # The ledger writes the approvals' audit rows beside the refund (effect_trail.py).
    writes_trail: bool = True

    def describe(self, action: PendingAction) -> str:
        amount = " ".join(filter(None, (action.arguments["amount"], action.arguments["currency"])))
        return f"refund {amount} on order {action.targets['order_id'] or '(none)'}"

    async def prepare(self, call: ToolUseBlock) -> Prepared:
        arguments = parse_arguments(REFUND, call.input)
        assert isinstance(arguments, RefundArguments)  # REFUND's own model
        state = await read_state(self.request)
        return Prepared(
            arguments={"amount": money(to_minor(arguments.amount))},
            targets={},
            reason=arguments.reason,
            state=state,
        )

    def action(
        self,
        call: ToolUseBlock,
        prepared: Prepared,
        state: ActionState,
        supersedes: str | None,
        note: str,
    ) -> PendingAction:
        # The order and currency are the state's: a voided action's successor may be
        # judged on another state, never on another order.
        amount_minor = to_minor(Decimal(prepared.arguments["amount"]))
        # The refund declares its exposure in code: its amount, on its order, in the
        # order's currency (none when the ticket has no order: the refund is denied).
        exposure = (
            None
            if state.order_id is None or state.currency is None
            else ActionExposure(
                amount=money(amount_minor),
                currency=state.currency,
                order_id=state.order_id,
                amount_argument="amount",
            )
        )
        return new_action(
            self.request,
            call,
            arguments={"amount": money(amount_minor), "currency": state.currency or ""},
            targets={"tenant_id": self.request.tenant_id, "order_id": state.order_id or ""},
            reason=prepared.reason,
            state=state,
            policy=self.policy,
            supersedes=supersedes,
            note=note,
            exposure=exposure,
        )

    def mode(self, action: PendingAction) -> tuple[ApprovalMode, str]:
        if self.policy is not None and self.policy.approval == "deny":
            return "deny", "this agent's profile does not allow refunds"
        mode, why = refund_mode(action_amount_minor(action), action.state)
        if mode == "confirm" and self.policy is not None and self.policy.approval == "review":
            return "review", ""
        return mode, why

    async def hold(self, action: PendingAction, match_rules: bool = False) -> Held:
        # The policy's review (N of M, a role, a chain) first: the exposure may ask for
        # more, never for less (`with_exposure`).
        # Judged afresh: an edit or an escalation arrives with the mode it had before.
        fresh = action.model_copy(update={"mode": "confirm", "required_approvals": 1})
        asked = with_policy(fresh, self.policy)
        amount_minor = action_amount_minor(asked)
        return await judged_on_exposure(asked, amount_minor, self.request, match_rules)

    async def release(self, action_hash: str) -> None:
        await release(action_hash)

    async def execute(
        self, action: PendingAction, proofs: list[Decision], trail: list[DecisionEvent]
    ) -> Effect | None:
        result = await execute(action, self.request, proofs, trail, self.policy)
        if result is None:
            return None
        written = result.trail_written
        if result.status == "refunded":
            return Effect(
                status="done",
                content=json.dumps(
                    {
                        "status": "refunded",
                        "refund_id": result.refund_id,
                        "order_id": action.targets["order_id"],
                        "amount": action.arguments["amount"],
                        "currency": action.arguments["currency"],
                        "approved_by": [a.reviewer_id for a in action.approvals],
                    }
                ),
                effect=f"{self.describe(action)} (refund {result.refund_id})",
                released=True,  # its hold went in the refund's own transaction
                trail_written=written,
            )
        if result.status in ("state_changed", "approver_invalid") and result.state is not None:
            return Effect(
                status=result.status,
                message=result.message,
                state=result.state,
                trail_written=written,
            )
        if result.status == "unavailable":
            return Effect(
                status="unavailable",
                message=result.message,
                trail_written=written,
                wait=result.wait,
            )
        return Effect(status="refused", message=result.message, trail_written=written)
