"""The baseline of `python -m bench.runs`: a refund run written by hand on plain Temporal.

It does what signoff's scripted refund run does, with the same activities (the real
ones, registered in its own worker) and the same payloads: the model turns (the first
brings the worker's limits back), the two read tools, the state read and the exposure hold (a local
activity, as signoff's: the hold takes no other call), one `decide` Update whose
handler verifies the signed decision (a local activity too, for the same reason), the
audit record, the refund, and the answer. Its wait
for the decision ends at the approval's expiry, as any approval that holds an expiring
reservation must (one timer, cancelled by the decision). It
leaves out what signoff's engine adds around that: status upserts, budgets and books,
the deadline, the decision trail's rules, the cancellation paths and the outcome
record. Its hashes and payload shapes come from the same pure helpers, so the
activities see the very same inputs.

Workflow code: deterministic, activities by name, explicit timeouts and bounded retries.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows import policy
    from workflows.actions import (
        EXECUTE_REFUND_ACTIVITY,
        HOLD_PENDING_REFUND_ACTIVITY,
        READ_ACTION_STATE_ACTIVITY,
        RECORD_DECISION_ACTIVITY,
        ActionHold,
        ActionState,
        ActionStateRequest,
        Decision,
        DecisionEvent,
        DecisionResult,
        PendingAction,
        PendingRefundHeld,
        RefundResult,
    )
    from workflows.agent_run import opening_message
    from workflows.approval_policy import money, to_minor
    from workflows.contracts import (
        MODEL_TURN_ACTIVITY,
        RUN_TOOL_ACTIVITY,
        Message,
        ModelReply,
        ModelRequest,
        RunRequest,
        TextBlock,
        ToolCallInput,
        ToolResult,
        ToolResultBlock,
        ToolUseBlock,
    )
    from workflows.decision_check import VERIFY_DECISION_ACTIVITY, DecisionCheck, DecisionProof
    from workflows.gate_actions import new_action
    from workflows.gate_results import trail_record
    from workflows.model_turn import actor_hash
    from workflows.refund_commands import refund_command
    from workflows.run_limits import RunLimitsRequest
    from workflows.tool_catalog import RefundArguments, offered_tools

RAW_WORKFLOW_NAME = "RawRefundBaseline"
CALL_TIMEOUT = timedelta(seconds=30)
# A local activity holds the workflow task: kept as short as signoff's own.
LOCAL_TIMEOUT = timedelta(seconds=10)
RETRIES = RetryPolicy(maximum_attempts=5)


async def call(activity: str, argument: Any, result_type: type | None = None) -> Any:
    return await workflow.execute_activity(
        activity,
        argument,
        result_type=result_type,
        start_to_close_timeout=CALL_TIMEOUT,
        retry_policy=RETRIES,
    )


@workflow.defn(name=RAW_WORKFLOW_NAME)
class RawRefund:
    def __init__(self) -> None:
        self._request: RunRequest | None = None
        self._pending: PendingAction | None = None
        self._decision: Decision | None = None

    @workflow.run
    async def run(self, request: RunRequest) -> str:
        self._request = request
        messages = [Message(role="user", content=[TextBlock(text=opening_message(request))])]
        for turn in range(request.step_budget):
            reply: ModelReply = await call(
                MODEL_TURN_ACTIVITY,
                ModelRequest(
                    model=request.model,
                    system=policy.SYSTEM_PROMPT,
                    messages=messages,
                    tools=[tool.spec() for tool in offered_tools()],
                    max_tokens=request.max_tokens,
                    user_hash=actor_hash(request.tenant_id, request.actor_id),
                    # As signoff's run: the worker's limits come with the first turn.
                    limits_for=RunLimitsRequest(model=request.model) if turn == 0 else None,
                ),
                ModelReply,
            )
            calls = [block for block in reply.content if isinstance(block, ToolUseBlock)]
            if not calls:
                return " ".join(b.text for b in reply.content if isinstance(b, TextBlock))
            messages.append(Message(role="assistant", content=list(reply.content)))
            results = [await self._tool(request, tool_call) for tool_call in calls]
            messages.append(Message(role="user", content=list(results)))
        raise ApplicationError("step budget exhausted", non_retryable=True)

    async def _tool(self, request: RunRequest, tool_call: ToolUseBlock) -> ToolResultBlock:
        if tool_call.name == "refund":
            return await self._refund(request, tool_call)
        run_id = workflow.info().workflow_id
        result: ToolResult = await call(
            RUN_TOOL_ACTIVITY,
            ToolCallInput(
                run_id=run_id,
                tenant_id=request.tenant_id,
                ticket_id=request.ticket_id,
                tool_use_id=tool_call.id,
                name=tool_call.name,
                arguments=tool_call.input,
                idempotency_key=f"{run_id}:{tool_call.name}:{tool_call.id}",
            ),
            ToolResult,
        )
        return ToolResultBlock(
            tool_use_id=tool_call.id, content=result.content, is_error=result.is_error
        )

    async def _refund(self, request: RunRequest, tool_call: ToolUseBlock) -> ToolResultBlock:
        arguments = RefundArguments.model_validate(tool_call.input)
        amount_minor = to_minor(arguments.amount)
        state: ActionState = await call(
            READ_ACTION_STATE_ACTIVITY,
            ActionStateRequest(tenant_id=request.tenant_id, ticket_id=request.ticket_id),
            ActionState,
        )
        action = new_action(
            request,
            tool_call,
            arguments={"amount": money(amount_minor), "currency": state.currency or ""},
            targets={"tenant_id": request.tenant_id, "order_id": state.order_id or ""},
            reason=arguments.reason,
            state=state,
            policy=None,
            supersedes=None,
            note="",
        )
        run_id = workflow.info().workflow_id
        # A local activity, as signoff's own, asking the standing rules with it.
        await workflow.execute_local_activity(
            HOLD_PENDING_REFUND_ACTIVITY,
            ActionHold(
                run_id=run_id,
                tenant_id=request.tenant_id,
                ticket_id=request.ticket_id,
                action=action,
                match_rules=True,
            ),
            result_type=PendingRefundHeld,
            start_to_close_timeout=LOCAL_TIMEOUT,
            retry_policy=RETRIES,
        )
        self._pending = action
        expiry = (action.expires_at - workflow.now()).total_seconds()
        # Its runs are decided at once: an expired wait (TimeoutError) fails the run.
        await workflow.wait_condition(lambda: self._decision is not None, timeout=expiry)
        decision = self._decision
        assert decision is not None
        record = trail_record(action, "approved", reviewer_id=decision.reviewer_id)
        await call(
            RECORD_DECISION_ACTIVITY,
            DecisionEvent(
                run_id=run_id,
                tenant_id=request.tenant_id,
                ticket_id=request.ticket_id,
                sequence=0,
                record=record,
                approval_number=1,
                approvals_required=1,
                # The audit writes a reviewer's decision only with its signed proof.
                proof=decision,
            ),
            int,
        )
        result: RefundResult = await call(
            EXECUTE_REFUND_ACTIVITY,
            refund_command(
                action,
                [decision],
                run_id=run_id,
                ticket_id=request.ticket_id,
                actor_id=request.actor_id,
            ),
            RefundResult,
        )
        content = json.dumps(
            {
                "status": result.status,
                "refund_id": result.refund_id,
                "order_id": action.targets["order_id"],
                "amount": action.arguments["amount"],
                "currency": action.arguments["currency"],
                "approved_by": [decision.reviewer_id],
            }
        )
        return ToolResultBlock(
            tool_use_id=tool_call.id, content=content, is_error=result.status != "refunded"
        )

    @workflow.query
    def pending_hash(self) -> str | None:
        return None if self._pending is None else self._pending.action_hash

    @workflow.update
    async def decide(self, decision: Decision) -> DecisionResult:
        assert self._request is not None
        update = workflow.current_update_info()
        # A local activity, as signoff's own: `verify_decision` takes no other call.
        proof: DecisionProof = await workflow.execute_local_activity(
            VERIFY_DECISION_ACTIVITY,
            DecisionCheck(
                run_id=workflow.info().workflow_id,
                run_tenant_id=self._request.tenant_id,
                run_actor_id=self._request.actor_id,
                update_id=update.id if update else "",
                decision=decision,
                now=workflow.now(),
            ),
            result_type=DecisionProof,
            start_to_close_timeout=CALL_TIMEOUT,
            retry_policy=RETRIES,
        )
        if not proof.accepted:
            raise ApplicationError(proof.message, type="DecisionRefused")
        self._decision = decision
        return DecisionResult(action_hash=decision.action_hash, status="approved", message="ok")

    @decide.validator
    def _validate(self, decision: Decision) -> None:
        if decision.signature is None:
            raise ApplicationError("unsigned", type="DecisionRefused")
        if self._pending is None or decision.action_hash != self._pending.action_hash:
            raise ApplicationError("not pending", type="NotPending")
