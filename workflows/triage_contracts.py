"""The types of structured triage: one forced classification, then a path in code."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from workflows.contract_base import Contract, Identifier, TenantId
from workflows.contracts import ModelRef, RunRequest, Usage

TRIAGE_WORKFLOW_NAME = "TriageTicket"
CLASSIFY_TOOL_NAME = "classify_ticket"

TriageCategory = Literal["tracking", "refund", "other"]
# The kind of task (a profile's `budgets.refund`) of the agent run a refund ticket starts.
REFUND_TASK_KIND = "refund"
REFUND_AGENT_GOAL = (
    "The customer's ticket was triaged as a refund request. Read it, check the order, and "
    "propose a refund only if the records justify it."
)
TriageStatus = Literal["answered", "agent_started", "handed_off", "failed"]


class TriageClassification(BaseModel):
    """What the forced tool must return; validated, never trusted to pick a target."""

    model_config = ConfigDict(extra="forbid")

    category: Annotated[
        TriageCategory,
        Field(description="tracking: where is my parcel; refund: money back; other: the rest."),
    ]
    urgency: Annotated[int, Field(ge=1, le=5, description="1 can wait, 5 is urgent.")]
    summary: Annotated[
        str, Field(min_length=1, max_length=300, description="One sentence for a colleague.")
    ]


class TriageRequest(Contract):
    tenant_id: TenantId
    actor_id: Identifier
    request_id: Identifier
    trace_id: Identifier
    ticket_id: Identifier
    policy_version: Identifier
    model: ModelRef
    max_tokens: Annotated[int, Field(ge=16, le=64_000)] = 1024
    # The agent run a refund ticket is handed to, whole, as the one run factory built it
    # (signoff/service/run_requests.py): its agent's profile and model, the tools its
    # tenant and actor are offered, the budget of the `refund` kind of task, the
    # settings' TTL and price. A scripted triage script classifies; it cannot act as an
    # agent, so this names a model of its own. The worker holds it to its own limits.
    agent: RunRequest

    @model_validator(mode="after")
    def _agent_is_this_tickets(self) -> TriageRequest:
        """The agent run works on this triage's ticket, tenant and actor, nothing else."""
        mine = (self.tenant_id, self.actor_id, self.ticket_id)
        theirs = (self.agent.tenant_id, self.agent.actor_id, self.agent.ticket_id)
        if mine != theirs:
            raise ValueError(
                f"the agent run's tenant, actor and ticket {theirs} are not the triage's {mine}"
            )
        return self


class TriageOutcome(Contract):
    triage_id: str
    status: TriageStatus
    detail: str = ""
    category: TriageCategory | None = None
    urgency: int | None = None
    summary: str | None = None
    answer: str | None = None
    agent_run_id: str | None = None
    usage: Usage = Usage()
    model: ModelRef
    scripted: bool
