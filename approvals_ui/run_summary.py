"""The run page's opening, in sentences: what the customer asked, what the agent did,
what was decided and by whom, and how it ended.

Everything here is read from the run's state and the ticket; nothing is invented. The
customer's words are quoted as an excerpt and escaped by the template like any ticket
text. Tokens, costs and the full timeline stay below, in a section a reviewer opens
when they need it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from approvals_ui.time_format import utc_text
from signoff.service.pending import time_left
from workflows.actions import DecisionRecord
from workflows.contracts import RunState
from workflows.reject_reasons import labelled

QUOTE_CHARS = 200
# What each tool call means, said as something the agent did.
TOOL_DEEDS = {
    "read_ticket": "read the ticket",
    "get_order": "looked the order up",
}
DECISION_WORDS = {
    "approved": "approved",
    "rejected": "rejected",
    "expired": "expired without a decision",
    "voided": "went void because the order changed",
    "denied": "was refused by policy",
    "cancelled": "ended unanswered when the run stopped",
    "refused": "saw a decision attempt refused",
    "edited": "was edited before approval",
}


@dataclass(frozen=True)
class Summary:
    asked: str
    did: str
    decided: str
    outcome: str

    def sentences(self) -> list[str]:
        return [self.asked, self.did, self.decided, self.outcome]


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= QUOTE_CHARS else flat[: QUOTE_CHARS - 1].rstrip() + "…"


def _join(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def asked(state: RunState, ticket_text: str | None, customer: str | None) -> str:
    who = f"The customer ({customer})" if customer and customer != "unknown" else "The customer"
    if ticket_text is None:
        return f"{who} wrote ticket {state.ticket_id}, which is no longer in the store."
    return f"{who} wrote on ticket {state.ticket_id}: “{_quote(ticket_text)}”"


def _refunds_asked(state: RunState) -> list[str]:
    amounts = [
        f"{record.amount} {record.currency or ''} on order {record.order_id}".replace("  ", " ")
        for record in state.decisions
        if record.amount
    ]
    amounts += [
        f"{action.arguments.get('amount')} {action.arguments.get('currency')} on order "
        f"{action.targets.get('order_id')}"
        for action in state.pending_actions
    ]
    return _unique(amounts)


def did(state: RunState) -> str:
    deeds = _unique(
        TOOL_DEEDS.get(call.name, f"called {call.name}")
        for call in state.tool_calls
        if call.name != "refund"
    )
    refunds = _refunds_asked(state)
    if refunds:
        deeds.append("proposed a refund of " + _join(refunds))
    failed = sum(1 for call in state.tool_calls if not call.ok and call.name != "refund")
    text = f"The agent {_join(deeds)}" if deeds else "The agent has not used a tool yet"
    text += f" in {state.turns_used} model turn{'s' if state.turns_used != 1 else ''}"
    if failed:
        text += f"; {failed} tool call{'s' if failed != 1 else ''} failed"
    return text + "."


def _decision(record: DecisionRecord) -> str:
    what = DECISION_WORDS.get(record.kind, record.kind)
    by = f" by {record.reviewer_id}" if record.reviewer_id and record.kind != "expired" else ""
    reason = labelled(record.category, record.reason)
    why = f" (“{_quote(reason)}”)" if reason and record.kind != "approved" else ""
    refund = f"the refund of {record.amount} {record.currency or ''}".rstrip()
    subject = refund if record.amount else "a refund request"
    return f"{subject} {what}{by} at {utc_text(record.at)}{why}"


def decided(state: RunState, time_left: str) -> str:
    records = [record for record in state.decisions if record.kind != "refused"]
    parts = [_decision(record) for record in records]
    if state.pending_actions:
        waiting = len(state.pending_actions)
        parts.append(
            f"{waiting} request{' waits' if waiting == 1 else 's wait'} for a decision "
            f"({time_left})"
        )
    if not parts:
        return "Nothing needed a reviewer's decision."
    text = "; then ".join(parts) + "."
    return text[0].upper() + text[1:]


def ended(state: RunState) -> str:
    outcome = state.outcome
    if outcome is None:
        return f"The run is still going ({state.status.replace('_', ' ')})."
    how = f"The run {outcome.status} ({outcome.reason.replace('_', ' ')})"
    if outcome.effects_performed:
        how += ": it made " + _join(outcome.effects_performed)
    elif outcome.effects_unknown:
        how += ": whether a refund happened is unknown, a person must check (signoff reconcile)"
    else:
        how += ": no refund was made"
    if outcome.final_text is not None:
        how += ", and the agent answered the customer"
    return how + "."


def summarize(
    state: RunState, ticket_text: str | None, customer: str | None, now: datetime
) -> Summary:
    soonest = min((action.expires_at for action in state.pending_actions), default=None)
    return Summary(
        asked=asked(state, ticket_text, customer),
        did=did(state),
        decided=decided(state, time_left(soonest, now) if soonest else ""),
        outcome=ended(state),
    )
