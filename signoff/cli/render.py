"""Plain-text views of runs for the terminal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from signoff.cli.terminal_text import one_line
from workflows.approval_requirements import approvers, missing
from workflows.reject_reasons import labelled

if TYPE_CHECKING:
    # Named in annotations alone: `signoff pending` prints a progress line from here and
    # loads no run contracts for it (tests/cli/test_status_imports.py).
    from signoff.service.retries import Retry
    from workflows.actions import DecisionRecord, PendingAction
    from workflows.contracts import RunEvent, RunOutcome, RunState, TurnUsage


# How much of an argument's value, and of all of them, one line shows.
ARGUMENT_CHARS = 40
ARGUMENTS_CHARS = 120
ELLIPSIS = "…"


def shown_status(
    cancelled: bool, outcome: RunOutcome | None, state: RunState | None, retries: list[Retry]
) -> str:
    """The status `signoff status` shows: the outcome's once the run ended, else the
    run's own word while a worker answers for it."""
    if outcome is not None:
        return outcome.status
    if state is not None:
        # Temporal retries a step the workflow cannot see: a running run is then retrying.
        return "retrying" if state.status == "running" and retries else state.status
    # Terminated or timed out from outside the workflow: Temporal's own word.
    return "cancelled" if cancelled else "failed"


def event_line(event: RunEvent) -> str:
    return f"  {event.at:%H:%M:%S}  {one_line(event.text)}"


def outcome_lines(outcome: RunOutcome) -> list[str]:
    lines = [
        f"run:      {outcome.run_id}",
        f"outcome:  {outcome.status} ({one_line(outcome.reason)})",
    ]
    if outcome.detail:
        lines.append(f"detail:   {one_line(outcome.detail)}")
    lines.append(
        f"turns:    {outcome.turns_used}   tokens: {outcome.tokens_used} "
        f"(in {outcome.usage.input_tokens}, out {outcome.usage.output_tokens})   "
        f"cost: {outcome.cost_usd} USD"
    )
    lines.extend(turn_usage_lines(outcome.turn_usage))
    calls = ", ".join(f"{c.name} {'ok' if c.ok else 'error'}" for c in outcome.tool_calls)
    lines.append(f"tools:    {calls or 'none'}")
    lines.append(f"effects:  {', '.join(outcome.effects_performed) or 'none'}")
    if outcome.not_performed:
        lines.append(f"not done: {', '.join(outcome.not_performed)}")
    if outcome.effects_unknown:
        unknown = ", ".join(effect.description for effect in outcome.effects_unknown)
        lines.append(f"unknown:  {unknown} (check with `signoff reconcile {outcome.run_id}`)")
    lines.extend(decision_lines(outcome.decisions))
    model = outcome.model.label()
    if outcome.scripted:
        model += "  (scripted: replies come from a script, not from an AI model)"
    lines.append(f"model:    {model}")
    if outcome.final_text:
        lines.append("answer:")
        lines.extend(f"  {line}" for line in outcome.final_text.splitlines())
    return lines


def turn_usage_lines(turns: list[TurnUsage]) -> list[str]:
    """Tokens of each model turn by kind: cache writes and reads show whether caching works."""
    lines = []
    for index, turn in enumerate(turns):
        usage = turn.usage
        label = "usage:    " if index == 0 else "          "
        lines.append(
            f"{label}turn {turn.turn}  in {usage.input_tokens}, out {usage.output_tokens}, "
            f"cache write {usage.cache_creation_input_tokens}, "
            f"cache read {usage.cache_read_input_tokens}  ({turn.cost_usd} USD)"
        )
    return lines


def decision_lines(decisions: list[DecisionRecord]) -> list[str]:
    if not decisions:
        return []
    lines = ["decisions:"]
    for decision in decisions:
        who = f" by {decision.reviewer_id}" if decision.reviewer_id else ""
        # The record's money is its action's exposure; a tool without one shows none.
        money = f"{decision.amount} {decision.currency or ''}".rstrip()
        order = f" on order {decision.order_id}" if decision.order_id else ""
        what = f"{one_line(money + order)}  " if decision.amount else ""
        reason = labelled(decision.category, decision.reason)
        why = f": {one_line(reason)}" if reason else ""
        lines.append(
            f"  {decision.at:%Y-%m-%d %H:%M:%S}  {decision.kind}{who}  "
            f"{what}{decision.action_hash[:12]}{why}"
        )
    return lines


def what_it_does(action: PendingAction, title: str | None = None) -> str:
    """`refund 89.90 EUR on order C-1042`, `issue_voucher 15.00 EUR` (a tool whose policy
    declares its money), or a tool without one with its arguments, shortened:
    `send_reply text=Hello, thank you for…`. With its card's `title`, the tool reads by it
    and keeps its name for ops: `Send a reply to the customer (send_reply) text=…`. One
    line, whatever the arguments hold."""
    name = one_line(action.tool)
    if title is not None:
        name = f"{one_line(title)} ({name})"
    if action.exposure is not None:
        return f"{name} {one_line(action.exposure.said())}"
    shown = arguments_said(action.arguments)
    return f"{name} {shown}" if shown else name


def arguments_said(arguments: dict[str, str]) -> str:
    """`name=value; name=value`, each value cut at `ARGUMENT_CHARS` and the whole at
    `ARGUMENTS_CHARS`: a reply's whole text would push the line off the screen."""
    parts = [
        f"{name}={_shortened(value, ARGUMENT_CHARS)}" for name, value in sorted(arguments.items())
    ]
    return one_line(_shortened("; ".join(parts), ARGUMENTS_CHARS))


def _shortened(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + ELLIPSIS


def progress_line(approved_by: list[str], still_missing: str) -> str:
    """`approved by alice, bob; 2 of 3 approvals; still needs one from finance`."""
    who = f"approved by {', '.join(approved_by)}" if approved_by else "no approval yet"
    return f"{who}; {still_missing}" if still_missing else f"{who}; complete"


def pending_lines(
    actions: list[PendingAction], titles: Mapping[str, str] | None = None
) -> list[str]:
    """`titles`: the card titles of the tools (cli/card_titles.py), where known."""
    titles = titles or {}
    lines = []
    for action in actions:
        lines.append(
            f"waiting:  {what_it_does(action, titles.get(action.tool))}, "
            f"{len(action.approvals)}/{action.required_approvals} approvals, "
            f"expires {action.expires_at.isoformat()}"
        )
        lines.append(f"          hash {action.action_hash}")
        if action.approvals or missing(action):
            lines.append(f"          {progress_line(approvers(action), missing(action))}")
        if action.note:
            lines.append(f"          note: {one_line(action.note)}")
        if action.editable:
            # What `signoff approve --set NAME=VALUE` may change before approving.
            lines.append(f"          editable: {', '.join(action.editable)}")
    return lines


def state_lines(state: RunState, titles: Mapping[str, str] | None = None) -> list[str]:
    lines = [
        f"run:      {state.run_id}",
        f"status:   {state.status}",
        f"ticket:   {state.ticket_id} (tenant {state.tenant_id})",
        f"turns:    {state.turns_used} of {state.step_budget}   tokens: {state.usage.total} "
        f"of {state.token_budget}",
        f"cost:     {state.cost_usd} USD",
    ]
    lines.extend(turn_usage_lines(state.turn_usage))
    lines += [
        f"deadline: {state.deadline.isoformat()}",
        f"model:    {state.model.label()}",
    ]
    lines.extend(pending_lines(state.pending_actions, titles))
    lines.extend(f"waiting:  {waiting.tool}: {waiting.line()}" for waiting in state.effects_waiting)
    since = state.waiting_for_customer_since
    if since is not None:  # ask_customer's question is out; no reviewer is asked
        lines.append(f"waiting:  for the customer since {since:%Y-%m-%d %H:%M} UTC")
    lines.extend(decision_lines(state.decisions))
    if state.events:
        lines.append("progress:")
        lines.extend(event_line(event) for event in state.events)
    return lines
