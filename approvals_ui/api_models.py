"""What the JSON API answers and takes, as pydantic models: its OpenAPI schema is these.

The workflow's own contracts (`PendingAction`, `DecisionRecord`, `DecisionResult`,
`RunState`) are answered as they are, so an integration reads exactly what the workflow
holds; the models here only add the store's rows beside them and the request body.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from approvals_ui.decision_fields import CATEGORY_CHARS, REASON_CHARS
from signoff.service.batch_decisions import MAX_BATCH
from workflows.actions import DecisionRecord, PendingAction, Verdict
from workflows.approval_requirements import approvers, may_move_forward, missing
from workflows.contracts import RunStatus

# The longest reviewer id (an identifier: activities/store/schema.py ID_LENGTH).
REVIEWER_ID_CHARS = 128


class ApiModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ApiError(ApiModel):
    """Every refusal: a sentence for a person, never a stack trace."""

    detail: str


class Reviewer(ApiModel):
    id: str
    tenant_id: str
    display_name: str
    roles: list[str]
    can_decide: bool
    csrf_token: str | None = Field(
        description="Send it as X-CSRF-Token with a POST authenticated by the session "
        "cookie; null in proxy mode, which needs none."
    )


class ActionProgress(ApiModel):
    """Who approved an action and what it still needs (N of M, a role, a chain)."""

    action_hash: str
    approved_by: list[str] = Field(description="The reviewers who approved, in order.")
    still_missing: str = Field(
        description='What it still needs, e.g. "2 of 3 approvals; still needs one from '
        'finance"; empty when complete.'
    )
    can_move_forward: bool = Field(
        description="Whether you can give it an approval that counts: you hold a role it "
        "accepts, did not approve it yet, and hold the role its next step needs."
    )


class PendingApproval(ApiModel):
    run_id: str
    tenant_id: str
    ticket_id: str
    ticket_excerpt: str = Field(description="Unverified customer text, shortened.")
    action: PendingAction
    progress: ActionProgress


class ApprovalList(ApiModel):
    """One page of the tenant's pending actions, soonest expiry first."""

    total: int = Field(ge=0, description="Every pending action of the tenant, not this page.")
    waiting_runs: int = Field(
        ge=0,
        description="Runs waiting for a decision (those the pending actions belong to); "
        "a run may hold more than one pending action.",
    )
    unread_runs: int = Field(
        ge=0,
        description="Waiting runs whose pending actions could not be read; always 0 "
        "since the listing reads the store's read model (kept for compatibility).",
    )
    items: list[PendingApproval]
    next: str | None = Field(
        description="Pass as `after` to get the following page; null on the last page."
    )


class TicketView(ApiModel):
    id: str
    customer_name: str | None
    created_at: datetime | None
    text: str = Field(description="Unverified customer text, exactly as written.")


class RefundView(ApiModel):
    id: str
    order_id: str
    amount: Decimal
    currency: str
    approvers: list[str]
    created_at: datetime


class ApprovalDetail(ApiModel):
    run_id: str
    status: RunStatus
    ticket: TicketView | None
    pending_actions: list[PendingAction]
    # One per pending action, in the same order.
    progress: list[ActionProgress]
    prior_refunds: list[RefundView]
    decisions: list[DecisionRecord]


class DecisionBody(ApiModel):
    """The decision on one pending action, named by the hash the reviewer was shown."""

    action_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    verdict: Verdict
    reason: str = Field(
        default="",
        max_length=REASON_CHARS,
        description="Required to reject, and to approve with edits.",
    )
    category: str | None = Field(
        default=None,
        max_length=CATEGORY_CHARS,
        description="Required to reject: wrong_amount, not_eligible, needs_more_information, "
        "suspected_fraud or other. The agent is told it.",
    )
    edits: dict[str, Annotated[str, Field(max_length=4000)]] | None = Field(
        default=None,
        max_length=16,
        description="Approve with changes: the arguments the tool's policy lets a reviewer "
        'edit, e.g. {"amount": "50.00"} (lowered only) or {"text": "..."} for send_reply. '
        "The edited action gets its own hash; the answer names it.",
    )
    expected_reviewer: str | None = Field(
        default=None,
        max_length=REVIEWER_ID_CHARS,
        description="Who the client means to decide as (`signoff approve --as`). It never "
        "chooses the reviewer, the credential does: when it names someone else than the "
        "credential proves, the decision is refused with 403 before the run is read, so "
        "a token of another reviewer decides nothing. Compared as sign-in names are "
        "(case and width ignored).",
    )


class BatchItem(ApiModel):
    """One action of a batch: its run, and the hash the reviewer was shown."""

    run_id: str = Field(max_length=128)
    action_hash: str = Field(pattern=r"^[0-9a-f]{64}$")


class BatchDecisionBody(ApiModel):
    """One verdict, reason and category for several pending actions, each named by hash."""

    items: list[BatchItem] = Field(
        min_length=1,
        max_length=MAX_BATCH,
        description=f"At most {MAX_BATCH}; each (run_id, action_hash) once.",
    )
    verdict: Verdict
    reason: str = Field(default="", max_length=REASON_CHARS, description="Required to reject.")
    category: str | None = Field(
        default=None,
        max_length=CATEGORY_CHARS,
        description="Required to reject (as for one decision); the agent of each run is told it.",
    )


class BatchItemResult(ApiModel):
    run_id: str
    action_hash: str
    outcome: Literal["decided", "recorded", "failed", "decide_alone"] = Field(
        description="decided: approved or rejected; recorded: the first of two approvals, "
        "waiting for another reviewer; failed: nothing was decided (see message); "
        "decide_alone: an approval that needs the reviewer's passkey, decided in the "
        "reviewer UI's page of the run."
    )
    status: str | None = Field(
        description="The run's answer (approved, rejected, approval_recorded) when it "
        "took the decision."
    )
    message: str


class BatchDecisionResult(ApiModel):
    succeeded: int = Field(ge=0, description="Items decided or recorded.")
    failed: int = Field(ge=0, description="Items failed or left to decide alone.")
    results: list[BatchItemResult] = Field(description="One per item, in the request's order.")


class AuditEntry(ApiModel):
    """One row of the store's append-only audit."""

    id: int
    seq: int = Field(description="Place in the tenant's hash chain, from 1.")
    kind: str = Field(
        description="approved, rejected, expired, voided, denied, cancelled, refused, "
        "edited (a reviewer changed the action; the edited one has its own rows), "
        "first_approval (one of two approvals) or executed (the refund, with its id)."
    )
    decided_at: datetime
    recorded_at: datetime
    reviewer_id: str | None
    run_id: str
    ticket_id: str
    action_hash: str
    reason: str
    order_id: str | None
    amount: Decimal | None
    currency: str | None
    refund_id: str | None
    prev_hash: str = Field(description="The row_hash of the row before (seq - 1); 64 zeros at 1.")
    row_hash: str = Field(description="SHA-256 of prev_hash, a newline and hashed_fields (UTF-8).")
    hashed_fields: str = Field(
        description="The exact text the row's hash covers: the RFC 8785 JSON of the row's "
        "fields. docs/operating/audit.md has a script that checks it."
    )


class AuditList(ApiModel):
    total: int = Field(description="How many events match the filter, on every page.")
    items: list[AuditEntry]
    next: str | None = Field(description="The path of the next (older) page; null on the last.")


def progress_of(action: PendingAction, reviewer_id: str, roles: Sequence[str]) -> ActionProgress:
    return ActionProgress(
        action_hash=action.action_hash,
        approved_by=approvers(action),
        still_missing=missing(action),
        can_move_forward=may_move_forward(action, reviewer_id, roles),
    )
