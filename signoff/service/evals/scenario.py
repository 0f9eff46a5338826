"""The scenario file format (YAML), validated by pydantic; see docs/evals.md.

One file is one scenario: the store state it starts from, the ticket and the model of
the run, what the reviewers do with each pending action, an optional fault, and what
must hold of the trajectory. Names in the file (tenants, reviewers) are made unique per
run by the runner, so a scenario can be run many times, beside others, on one stack.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from workflows.actions import REFUND_APPROVER_ROLE

# The name part of a tenant id (a unique suffix is added): no '-', see TenantId.
TENANT_NAME = r"^[A-Za-z0-9][A-Za-z0-9_]{0,40}$"
NAME = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,60}$"
# `PROVIDER:MODEL_ID` (`scripted:NAME`, `openai:qwen3:4b`): the provider is checked
# against the registry when the scenario runs (runner.model_ref).
MODEL = r"^[a-z][a-z0-9_]{0,39}:[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$"
Money = Annotated[Decimal, Field(gt=0, max_digits=12, decimal_places=2)]


class Strict(BaseModel):
    # A misspelt key is an error, never a silently ignored line.
    model_config = ConfigDict(extra="forbid", frozen=True)


class OrderSpec(Strict):
    id: Annotated[str, Field(pattern=NAME)]
    paid: Money
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")] = "EUR"
    status: Annotated[str, Field(max_length=32)] = "delivered"
    tracking: Annotated[str, Field(max_length=128)] | None = None
    customer: Annotated[str, Field(max_length=200)] = "A customer"


class PriorRefund(Strict):
    order: str
    amount: Money


class TicketSpec(Strict):
    id: Annotated[str, Field(pattern=NAME)]
    order: str | None = None
    customer: Annotated[str, Field(max_length=200)] = "A customer"
    text: Annotated[str, Field(min_length=1)]
    # Filler appended to the text until it is this long: the context-pressure attack.
    pad_to_chars: Annotated[int, Field(ge=1, le=2_000_000)] | None = None


class ReviewerSpec(Strict):
    id: Annotated[str, Field(pattern=NAME)]
    roles: list[str] = [REFUND_APPROVER_ROLE]


class TenantSpec(Strict):
    id: Annotated[str, Field(pattern=TENANT_NAME)]
    review_threshold: Money = Decimal("200.00")
    orders: list[OrderSpec] = []
    refunds: list[PriorRefund] = []
    tickets: list[TicketSpec] = []
    reviewers: list[ReviewerSpec] = []


class RunSpec(Strict):
    tenant: str
    ticket: str
    model: Annotated[str, Field(pattern=MODEL)]
    goal: Annotated[str, Field(min_length=1, max_length=2000)] | None = None
    step_budget: Annotated[int, Field(ge=1, le=100)] | None = None
    token_budget: Annotated[int, Field(ge=1)] | None = None
    # How long a pending action waits before it expires (the worker's floor is 60 s).
    approval_ttl_seconds: Annotated[int, Field(ge=60)] | None = None


class ReviewerStep(Strict):
    """What one reviewer does with every pending action, in the listed order."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    reviewer: Annotated[str, Field(alias="as")]
    verdict: Literal["approve", "reject"]
    reason: Annotated[str, Field(max_length=2000)] = ""


class CrossTenantApproval(Strict):
    """A reviewer of another tenant approves each pending action through `decide`."""

    kind: Literal["cross_tenant_approval"]
    tenant: str
    reviewer: str


class StaleApproval(Strict):
    """Each pending action after the first: an approval signed for the previous action's
    hash, and the previous decision sent again verbatim (its nonce already spent)."""

    kind: Literal["stale_approval"]
    reviewer: str


class ConnectorDown(Strict):
    """The run is served by a worker whose store cannot be reached."""

    kind: Literal["connector_down"]


class RefundTimeoutAfterCommit(Strict):
    """The refund commits, then its first attempt's answer is lost (timed out)."""

    kind: Literal["refund_timeout_after_commit"]


class RefundOutcomeUnknown(Strict):
    """The refund commits, and every attempt's answer is lost: an unknown outcome, which
    the runner then settles with the reconcile service."""

    kind: Literal["refund_outcome_unknown"]


Fault = Annotated[
    CrossTenantApproval
    | StaleApproval
    | ConnectorDown
    | RefundTimeoutAfterCommit
    | RefundOutcomeUnknown,
    Field(discriminator="kind"),
]
# Faults made by a worker of their own (signoff/wiring/eval_faults.py).
WORKER_FAULTS = ("connector_down", "refund_timeout_after_commit", "refund_outcome_unknown")


class Expectations(Strict):
    status: Literal["completed", "failed", "cancelled"] = "completed"
    reason: str = "answered"
    # The only tools that may run (a call to any other must never reach a tool).
    tools: list[Literal["read_ticket", "get_order", "refund"]] = ["read_ticket", "get_order"]
    # What this run refunded in total on the ticket's order; absent: not checked.
    refunded: Annotated[Decimal, Field(ge=0, decimal_places=2)] | None = None
    mentions: list[str] = []
    avoids: list[str] = []


class Scenario(Strict):
    description: str = ""
    tenants: Annotated[list[TenantSpec], Field(min_length=1)]
    run: RunSpec
    reviewers: list[ReviewerStep] = []
    fault: Fault | None = None
    expect: Expectations = Expectations()

    def tenant(self, name: str) -> TenantSpec | None:
        return next((tenant for tenant in self.tenants if tenant.id == name), None)


class LoadedScenario(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    path: Path
    scenario: Scenario


class ScenarioError(ValueError):
    """A scenario file that cannot be used; the message names the file and the field."""


SCENARIO_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def scenario_name(path: Path) -> str:
    return SCENARIO_NAME.sub("_", path.stem)
