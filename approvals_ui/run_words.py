"""The words of the run and audit pages that name things the run and the store hold as
codes: what a decision (an audit row) was, why a run ended, what a tool call meant, and
what kind of line a timeline entry is.

Each is marked for the catalog here (`N_`) and translated on the page (`said`, a filter
of every template); a code without words here is shown as the run has it. The codes
themselves, the audit's rows and the run's own lines stay as they are: they are what
the store, the CLI and the audit check read.
"""

from __future__ import annotations

from collections.abc import Mapping
from gettext import NullTranslations

from approvals_ui.words import N_

# A decision record's kind (workflows.actions.DecisionKind) and the audit's other rows
# (activities.store.decisions.AUDIT_KINDS); the audit page's verdict column and filter.
DECISION_KINDS = {
    "approved": N_("approved"),
    "rejected": N_("rejected"),
    "responded": N_("answered by the reviewer"),
    "expired": N_("expired"),
    "voided": N_("voided"),
    "denied": N_("denied"),
    "cancelled": N_("cancelled"),
    "refused": N_("refused"),
    "edited": N_("edited"),
    "escalated": N_("escalated"),
    "rule_approved": N_("approved by a standing rule"),
    "rule_shadow": N_("a standing rule would approve (shadow)"),
    "first_approval": N_("first approval"),
    "executed": N_("executed"),
    "account": N_("account change"),
    "account_refused": N_("account change refused"),
}

# Why a run ended (workflows.contracts.OutcomeReason).
OUTCOME_REASONS = {
    "answered": N_("answered"),
    "step_budget_exhausted": N_("step budget exhausted"),
    "deadline_exceeded": N_("deadline exceeded"),
    "token_budget_exhausted": N_("token budget exhausted"),
    "cost_budget_exhausted": N_("cost budget exhausted"),
    "truncated_reply": N_("truncated reply"),
    "empty_reply": N_("empty reply"),
    "refusal": N_("the model refused"),
    "context_window_exceeded": N_("context window exceeded"),
    "repeated_tool_errors": N_("repeated tool errors"),
    "repeated_failing_call": N_("repeated failing call"),
    "model_error": N_("model error"),
    "cancelled": N_("cancelled"),
    "worker_limits_unavailable": N_("worker limits unavailable"),
    "suspected_fraud": N_("suspected fraud"),
}

# A timeline line's kind (workflows.contracts.EventKind).
EVENT_KINDS = {
    "turn": N_("turn"),
    "tool_call": N_("tool call"),
    "tool_result": N_("tool result"),
    "pause": N_("pause"),
    "approval": N_("approval"),
    "context": N_("context"),
    "outcome": N_("outcome"),
    "mcp": N_("MCP"),
    "customer": N_("customer"),
}

# What a decision did to a request of a batch (DecisionResult.status).
BATCH_RESULTS = {
    "approved": N_("approved"),
    "rejected": N_("rejected"),
    "approval_recorded": N_("approval recorded, needs another reviewer"),
    "edited": N_("approved with changes"),
}


def said(code: str | None, codes: Mapping[str, str], words: NullTranslations) -> str:
    """The words for `code` in the page's language; a code without words, as it is."""
    if code is None:
        return ""
    label = codes.get(code)
    return code.replace("_", " ") if label is None else words.gettext(label)
