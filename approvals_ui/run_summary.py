"""The run page's opening, in sentences: what the customer asked, what the agent did,
what was decided and by whom, and how it ended.

Everything here is read from the run's state and the ticket; nothing is invented. The
customer's words are quoted as an excerpt and escaped by the template like any ticket
text. Tokens, costs and the full timeline stay below, in a section a reviewer opens
when they need it.

Each sentence is one message of the catalog, written in the page's language, with its
amounts, times and time left as Babel writes them there (money_format, time_format).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from gettext import NullTranslations

from approvals_ui.decision_words import REJECT_LABELS, RUN_STATUSES
from approvals_ui.money_format import amount_text
from approvals_ui.readable import SHORT_HASH
from approvals_ui.run_words import OUTCOME_REASONS, said
from approvals_ui.time_format import local_text, time_left_text
from approvals_ui.words import N_
from signoff.service.languages import SOURCE_LANGUAGE
from workflows.actions import DecisionRecord
from workflows.contracts import RunState
from workflows.outside_text import without_bidi
from workflows.tool_catalog import REFUND

QUOTE_CHARS = 200
# What each tool call means, said as something the agent did.
TOOL_DEEDS = {
    "read_ticket": N_("read the ticket"),
    "get_order": N_("looked the order up"),
}
DECISION_WORDS = {
    "approved": N_("approved"),
    "rejected": N_("rejected"),
    "responded": N_("was answered by the reviewer instead of decided"),
    "expired": N_("expired without a decision"),
    "voided": N_("went void because the order changed"),
    "denied": N_("was refused by policy"),
    "cancelled": N_("ended unanswered when the run stopped"),
    "refused": N_("saw a decision attempt refused"),
    "edited": N_("was edited before approval"),
    "rule_approved": N_("was approved by a standing rule"),
    "rule_shadow": N_("would have been approved by a standing rule (shadow mode)"),
}


@dataclass(frozen=True)
class Summary:
    asked: str
    did: str
    decided: str
    outcome: str

    def sentences(self) -> list[str]:
        return [self.asked, self.did, self.decided, self.outcome]


@dataclass(frozen=True)
class Voice:
    """The page's language and catalog, which every sentence is written with."""

    words: NullTranslations
    language: str

    def __call__(self, message: str, **values: object) -> str:
        text = self.words.gettext(message)
        return text % values if values else text

    def ngettext(self, singular: str, plural: str, count: int, **values: object) -> str:
        """The catalog's plural form for `count` (`pybabel extract` reads the call)."""
        return self.words.ngettext(singular, plural, count) % {"count": count, **values}

    def amount(self, amount: object, currency: str | None) -> str:
        return amount_text(str(amount), currency, self.language)

    def join(self, parts: list[str]) -> str:
        if len(parts) <= 1:
            return "".join(parts)
        first = ", ".join(parts[:-1])
        return self(N_("%(first)s and %(last)s"), first=first, last=parts[-1])


def _quote(text: str) -> str:
    """Outside words (a ticket, a reviewer's reason) on one line, cut, without the bidi
    controls that would reorder the sentence they are quoted in."""
    flat = " ".join(without_bidi(text).split())
    return flat if len(flat) <= QUOTE_CHARS else flat[: QUOTE_CHARS - 1].rstrip() + "…"


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def asked(state: RunState, ticket_text: str | None, customer: str | None, say: Voice) -> str:
    ticket = state.ticket_id
    # A sentence is plain text, with no element to isolate a name in: its bidi controls
    # go, so that a name cannot reverse the ticket id and the words after it.
    named = without_bidi(customer) if customer and customer != "unknown" else None
    if ticket_text is None:
        if named:
            return say(
                N_("The customer (%(customer)s) wrote ticket %(ticket)s, which is no longer "
                   "in the store."),
                customer=named, ticket=ticket,
            )  # fmt: skip
        return say(
            N_("The customer wrote ticket %(ticket)s, which is no longer in the store."),
            ticket=ticket,
        )
    quote = _quote(ticket_text)
    if named:
        return say(
            N_("The customer (%(customer)s) wrote on ticket %(ticket)s: “%(quote)s”"),
            customer=named, ticket=ticket, quote=quote,
        )  # fmt: skip
    return say(
        N_("The customer wrote on ticket %(ticket)s: “%(quote)s”"), ticket=ticket, quote=quote
    )


def _tool_of(record: DecisionRecord, state: RunState) -> str | None:
    """The tool a decision was about: a waiting action's own; else the one tool the run
    proposed (a record names no tool); None when the run proposed several."""
    for action in state.pending_actions:
        if action.action_hash == record.action_hash:
            return action.tool
    proposed = {call.name for call in state.tool_calls if call.name not in TOOL_DEEDS}
    return next(iter(proposed)) if len(proposed) == 1 else None


def _refunds_asked(state: RunState, say: Voice) -> list[str]:
    """The refunds proposed, with their money: each record's and waiting action's
    exposure (`workflows/exposure.py`), the refund's alone: another tool's call is said
    as a call (`_deed`)."""
    on_order = N_("%(amount)s on order %(order)s")
    amounts = [
        say(on_order, amount=say.amount(record.amount, record.currency), order=record.order_id)
        for record in state.decisions
        if record.amount and record.order_id and _tool_of(record, state) == REFUND.name
    ]
    amounts += [
        say(
            on_order,
            amount=say.amount(action.exposure.amount, action.exposure.currency),
            order=action.exposure.order_id,
        )
        for action in state.pending_actions
        if action.tool == REFUND.name
        and action.exposure is not None
        and action.exposure.order_id is not None
    ]
    return _unique(amounts)


def _deed(tool: str, say: Voice) -> str:
    return say(TOOL_DEEDS[tool]) if tool in TOOL_DEEDS else say(N_("called %(tool)s"), tool=tool)


def did(state: RunState, say: Voice) -> str:
    deeds = _unique(_deed(call.name, say) for call in state.tool_calls if call.name != REFUND.name)
    refunds = _refunds_asked(state, say)
    if refunds:
        deeds.append(say(N_("proposed a refund of %(refunds)s"), refunds=say.join(refunds)))
    turns = state.turns_used
    if deeds:
        text = say.ngettext(
            "The agent %(deeds)s in %(count)s model turn",
            "The agent %(deeds)s in %(count)s model turns",
            turns,
            deeds=say.join(deeds),
        )
    else:
        text = say.ngettext(
            "The agent has not used a tool yet in %(count)s model turn",
            "The agent has not used a tool yet in %(count)s model turns",
            turns,
        )
    failed = sum(1 for call in state.tool_calls if not call.ok and call.name != REFUND.name)
    if failed:
        text += say.ngettext(
            "; %(count)s tool call failed", "; %(count)s tool calls failed", failed
        )
    return text + "."


def _subject(record: DecisionRecord, tool: str | None, say: Voice) -> str:
    """What a decision was about, per tool: the refund in words; another tool by its
    name (the reviewer's own word for it), with its money where it declares some; an
    unknown tool by its money, else by its action's short hash."""
    money = say.amount(record.amount, record.currency) if record.amount else None
    if tool == REFUND.name:
        if money is None:
            return say(N_("a refund request"))
        return say(N_("the refund of %(amount)s"), amount=money)
    if tool is not None:
        return tool if money is None else f"{tool} ({money})"
    return money or record.action_hash[:SHORT_HASH]


def _decision(record: DecisionRecord, state: RunState, say: Voice) -> str:
    what = say(DECISION_WORDS[record.kind]) if record.kind in DECISION_WORDS else record.kind
    subject = _subject(record, _tool_of(record, state), say)
    at = local_text(record.at, say.language)
    if record.reviewer_id and record.kind != "expired":
        text = say(
            N_("%(subject)s %(what)s by %(reviewer)s at %(time)s"),
            subject=subject, what=what, reviewer=record.reviewer_id, time=at,
        )  # fmt: skip
    else:
        text = say(N_("%(subject)s %(what)s at %(time)s"), subject=subject, what=what, time=at)
    if record.kind != "approved" and (record.reason or record.category):
        label = said(record.category, REJECT_LABELS, say.words) if record.category else ""
        reason = (
            say(N_("%(category)s: %(reason)s"), category=label, reason=record.reason)
            if label
            else record.reason
        )
        text += say(N_(" (“%(reason)s”)"), reason=_quote(reason))
    return text


def decided(state: RunState, time_left: str, say: Voice) -> str:
    records = [record for record in state.decisions if record.kind != "refused"]
    parts = [_decision(record, state, say) for record in records]
    if state.pending_actions:
        parts.append(
            say.ngettext(
                "%(count)s request waits for a decision (%(time_left)s)",
                "%(count)s requests wait for a decision (%(time_left)s)",
                len(state.pending_actions),
                time_left=time_left,
            )
        )
    parts.extend(
        say(
            N_("approved; waiting for %(connector)s since %(since)s UTC"),
            connector=waiting.connector,
            since=f"{waiting.since:%Y-%m-%d %H:%M}",
        )
        for waiting in state.effects_waiting
    )
    if not parts:
        return say(N_("Nothing needed a reviewer's decision."))
    text = say(N_("; then ")).join(parts) + "."
    first = _tool_of(records[0], state) if records else None
    if first is not None and first != REFUND.name:
        return text  # a tool's name is written as the tool is named
    return text[0].upper() + text[1:]


def ended(state: RunState, say: Voice) -> str:
    outcome = state.outcome
    if outcome is None:
        since = state.waiting_for_customer_since
        if since is not None:  # not a reviewer's request: the customer has the next word
            return say(
                N_("The run has been waiting for the customer since %(since)s UTC."),
                since=f"{since:%Y-%m-%d %H:%M}",
            )
        status = said(state.status, RUN_STATUSES, say.words)
        return say(N_("The run is still going (%(status)s)."), status=status)
    status = said(outcome.status, RUN_STATUSES, say.words)
    reason = said(outcome.reason, OUTCOME_REASONS, say.words)
    if outcome.effects_performed and say.language == SOURCE_LANGUAGE:
        # The effects are the run's own lines (the audit's words), in English as written.
        how = say(
            N_("The run %(status)s (%(reason)s): it made %(effects)s"),
            status=status, reason=reason, effects=say.join(outcome.effects_performed),
        )  # fmt: skip
    elif outcome.effects_performed:
        # In another language the sentence counts them: the run's English lines inside it
        # would mix two languages ("elle a fait refund 45.00 EUR on order …"). The list
        # below shows them as the run wrote them, marked English; the decisions' sentence
        # above names each refund's amount in the page's language.
        how = say.ngettext(
            "The run %(status)s (%(reason)s): it made %(count)s change, listed below",
            "The run %(status)s (%(reason)s): it made %(count)s changes, listed below",
            len(outcome.effects_performed), status=status, reason=reason,
        )  # fmt: skip
    elif outcome.effects_unknown:
        how = say(
            N_("The run %(status)s (%(reason)s): whether a refund happened is unknown, a "
               "person must check (signoff reconcile)"),
            status=status, reason=reason,
        )  # fmt: skip
    else:
        how = say(
            N_("The run %(status)s (%(reason)s): no refund was made"), status=status, reason=reason
        )
    if outcome.final_text is not None:
        how += say(N_(", and the agent answered the customer"))
    return how + "."


def summarize(
    state: RunState,
    ticket_text: str | None,
    customer: str | None,
    now: datetime,
    words: NullTranslations,
    language: str,
) -> Summary:
    say = Voice(words, language)
    soonest = min((action.expires_at for action in state.pending_actions), default=None)
    left = time_left_text(soonest, now, language, words) if soonest else ""
    return Summary(
        asked=asked(state, ticket_text, customer, say),
        did=did(state, say),
        decided=decided(state, left, say),
        outcome=ended(state, say),
    )
