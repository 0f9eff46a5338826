"""The minimal baseline of `python -m bench.runs --baseline minimal`: the refund run's
business, written by hand on plain Temporal with activities of its own.

Four model turns (read the ticket, look the order up, propose the refund, answer), the
two read tools, one read of the action's state, one `decide` Update, and the refund on
the same SQLite ledger (`bench/runs/minimal_activities.py`). It is what a team would
write without signoff: no signed decisions, audit, exposure hold, limits, status
upserts, deadline or outcome record. The distance from signoff to this baseline is the
cost of signoff's design; the distance to the raw baseline (`bench/runs/raw_refund.py`,
signoff's own activities) is the cost of its engine's code.

Workflow code: deterministic, activities by name, explicit timeouts and bounded retries.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    # What the model is told and offered is the business's, not the engine's: the same
    # prompt and tool definitions as signoff's agent, so that both send the model alike.
    from workflows.policy import SYSTEM_PROMPT
    from workflows.tool_catalog import offered_tools

MINIMAL_WORKFLOW_NAME = "MinimalRefundBaseline"
MODEL_TURN = "minimal_model_turn"
READ_TICKET = "minimal_read_ticket"
GET_ORDER = "minimal_get_order"
READ_ACTION_STATE = "minimal_read_action_state"
EXECUTE_REFUND = "minimal_execute_refund"
# The activity the run waits for its decision after (bench/runs/samples.py watches it).
LAST_BEFORE_WAITING = READ_ACTION_STATE
CALL_TIMEOUT = timedelta(seconds=30)
RETRIES = RetryPolicy(maximum_attempts=5)
MAX_TURNS = 8


@dataclass(frozen=True)
class MinimalRequest:
    tenant_id: str
    ticket_id: str
    approval_ttl_seconds: int


@dataclass(frozen=True)
class Turn:
    system: str
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]  # role and content, the conversation so far


@dataclass(frozen=True)
class Reply:
    text: str
    tool: str | None = None  # read_ticket, get_order or refund; None: the answer
    arguments: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TicketRef:
    tenant_id: str
    ticket_id: str


@dataclass(frozen=True)
class OrderRef:
    tenant_id: str
    order_id: str


@dataclass(frozen=True)
class RefundOrder:
    tenant_id: str
    order_id: str
    amount_minor: int
    currency: str
    run_id: str
    action_hash: str
    approver: str
    reason: str


@dataclass(frozen=True)
class MinimalDecision:
    action_hash: str
    reviewer_id: str
    verdict: str  # approve or reject


async def call(activity: str, argument: object, result_type: type) -> object:
    return await workflow.execute_activity(
        activity,
        argument,
        result_type=result_type,
        start_to_close_timeout=CALL_TIMEOUT,
        retry_policy=RETRIES,
    )


@workflow.defn(name=MINIMAL_WORKFLOW_NAME)
class MinimalRefund:
    def __init__(self) -> None:
        self._pending: str | None = None
        self._decision: MinimalDecision | None = None

    @workflow.run
    async def run(self, request: MinimalRequest) -> str:
        messages: list[dict[str, Any]] = [
            {"role": "user", "content": f"Ticket {request.ticket_id}: answer the customer."}
        ]
        tools = [tool.spec().model_dump(mode="json") for tool in offered_tools()]
        order_id = ""
        for _ in range(MAX_TURNS):
            reply = await call(MODEL_TURN, Turn(SYSTEM_PROMPT, tools, messages), Reply)
            assert isinstance(reply, Reply)
            if reply.tool is None:
                return reply.text
            messages.append(
                {
                    "role": "assistant",
                    "content": reply.text,
                    "tool": reply.tool,
                    "input": reply.arguments,
                }
            )
            if reply.tool == "read_ticket":
                ticket = await call(
                    READ_TICKET, TicketRef(request.tenant_id, request.ticket_id), dict
                )
                assert isinstance(ticket, dict)
                order_id = str(ticket["order_id"])
                result: object = ticket
            elif reply.tool == "get_order":
                result = await call(GET_ORDER, OrderRef(request.tenant_id, order_id), dict)
            else:
                result = await self._refund(request, order_id, reply)
            messages.append({"role": "user", "content": json.dumps(result)})
        raise ApplicationError("no answer within the turns", non_retryable=True)

    async def _refund(self, request: MinimalRequest, order_id: str, reply: Reply) -> object:
        state = await call(READ_ACTION_STATE, OrderRef(request.tenant_id, order_id), dict)
        assert isinstance(state, dict)
        amount_minor = int(reply.arguments["amount_minor"])
        run_id = workflow.info().workflow_id
        # Bound to the action and the state it was judged on, as any approval must be.
        self._pending = hashlib.sha256(
            json.dumps([run_id, order_id, amount_minor, state], sort_keys=True).encode()
        ).hexdigest()
        await workflow.wait_condition(
            lambda: self._decision is not None, timeout=request.approval_ttl_seconds
        )
        decision = self._decision
        assert decision is not None
        if decision.verdict != "approve":
            return {"status": "rejected"}
        return await call(
            EXECUTE_REFUND,
            RefundOrder(
                tenant_id=request.tenant_id,
                order_id=order_id,
                amount_minor=amount_minor,
                currency=str(state["currency"]),
                run_id=run_id,
                action_hash=self._pending,
                approver=decision.reviewer_id,
                reason=reply.arguments.get("reason", ""),
            ),
            dict,
        )

    @workflow.query
    def pending_hash(self) -> str | None:
        return self._pending if self._decision is None else None

    @workflow.update
    def decide(self, decision: MinimalDecision) -> str:
        self._decision = decision
        return "approved" if decision.verdict == "approve" else "rejected"

    @decide.validator
    def _validate(self, decision: MinimalDecision) -> None:
        if self._pending is None or self._decision is not None:
            raise ApplicationError("nothing waits for a decision", type="NotPending")
        if decision.action_hash != self._pending:
            raise ApplicationError("not the pending action", type="NotPending")
