"""The types of structured triage: one forced classification, then a path in code."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from workflows.contract_base import Contract, Identifier, TenantId
from workflows.contracts import ModelRef, Usage
from workflows.run_limits import RunLimits

TRIAGE_WORKFLOW_NAME = "TriageTicket"
CLASSIFY_TOOL_NAME = "classify_ticket"

TriageCategory = Literal["tracking", "refund", "other"]
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
    # The model of the agent run a refund ticket is handed to (a scripted triage
    # script classifies; it cannot act as an agent).
    agent_model: ModelRef
    max_tokens: Annotated[int, Field(ge=16, le=64_000)] = 1024
    # The budgets, expiry and price of the agent run, from the same settings as
    # `signoff run` (the run is held to the worker's own limits anyway). None in
    # requests from before it was added: the run then starts on RunRequest's defaults.
    agent_limits: RunLimits | None = None


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
