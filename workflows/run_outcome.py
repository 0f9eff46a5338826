"""What a run publishes about itself: its outcome and its search attributes.

The outcome is built from the run's books and its gate, so that the result, the state
query and the audit tell the same story. The status search attribute lets a list of
runs filter on it without a query to each run; beside it, the hashes of the actions
the run waits on let the read model's reconcile check its rows without a query. A run
upserts both together, one history event per change of either, and nothing that would
not change; at its start, only the attributes its starter did not set right. The
store's read model and audit hold the pending actions and decisions themselves.
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow
from temporalio.common import SearchAttributeKey, SearchAttributeUpdate

with workflow.unsafe.imports_passed_through():
    from workflows.approval_gate import ApprovalGate
    from workflows.contracts import (
        PENDING_ATTRIBUTE,
        STATUS_ATTRIBUTE,
        TENANT_ATTRIBUTE,
        FinalStatus,
        OutcomeReason,
        RunOutcome,
        RunRequest,
        RunStatus,
    )
    from workflows.run_books import RunBooks

STATUS_KEY = SearchAttributeKey.for_keyword(STATUS_ATTRIBUTE)
TENANT_KEY = SearchAttributeKey.for_keyword(TENANT_ATTRIBUTE)
PENDING_KEY = SearchAttributeKey.for_keyword_list(PENDING_ATTRIBUTE)


def outcome(
    request: RunRequest,
    books: RunBooks,
    gate: ApprovalGate,
    status: FinalStatus,
    reason: OutcomeReason,
    detail: str,
    final_text: str | None = None,
) -> RunOutcome:
    return RunOutcome(
        run_id=workflow.info().workflow_id,
        status=status,
        reason=reason,
        detail=detail,
        final_text=final_text,
        turns_used=books.turns,
        usage=books.usage,
        tool_calls=list(books.tool_calls),
        effects_performed=list(gate.effects),
        not_performed=list(gate.not_performed),
        effects_unknown=list(gate.unknown),
        decisions=list(gate.decisions),
        cost_usd=books.rounded_cost(),
        turn_usage=list(books.turn_usage),
        model=request.model,
        scripted=request.model.scripted,
    )


def publish_waiting(status: RunStatus | None, pending: tuple[str, ...] | None) -> None:
    """The status and the pending hashes that changed (None: unchanged), in one upsert:
    one event per change of state."""
    changes: list[SearchAttributeUpdate[Any]] = []
    if status is not None:
        changes.append(STATUS_KEY.value_set(status))
    if pending is not None:
        changes.append(
            PENDING_KEY.value_set(list(pending)) if pending else PENDING_KEY.value_unset()
        )
    if changes:
        workflow.upsert_search_attributes(changes)


def publish_start(tenant_id: str) -> None:
    """Status `running` and the run's own tenant, in one upsert, and only where the
    attributes the run was started with say otherwise: the service starts runs with
    both, but the run trusts its request, not whatever a starter put beside it."""
    given = workflow.info().typed_search_attributes
    wanted = ((STATUS_KEY, "running"), (TENANT_KEY, tenant_id))
    changes = [key.value_set(value) for key, value in wanted if given.get(key) != value]
    if changes:
        workflow.upsert_search_attributes(changes)
