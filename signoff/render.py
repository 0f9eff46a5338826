"""Plain-text views of runs for the terminal."""

from __future__ import annotations

from workflows.contracts import RunEvent, RunOutcome, RunState


def event_line(event: RunEvent) -> str:
    return f"  {event.at:%H:%M:%S}  {event.text}"


def outcome_lines(outcome: RunOutcome) -> list[str]:
    lines = [
        f"run:      {outcome.run_id}",
        f"outcome:  {outcome.status} ({outcome.reason})",
    ]
    if outcome.detail:
        lines.append(f"detail:   {outcome.detail}")
    lines.append(
        f"turns:    {outcome.turns_used}   tokens: {outcome.tokens_used} "
        f"(in {outcome.usage.input_tokens}, out {outcome.usage.output_tokens})"
    )
    calls = ", ".join(f"{c.name} {'ok' if c.ok else 'error'}" for c in outcome.tool_calls)
    lines.append(f"tools:    {calls or 'none'}")
    lines.append(f"effects:  {', '.join(outcome.effects_performed) or 'none'}")
    if outcome.not_performed:
        lines.append(f"not done: {', '.join(outcome.not_performed)}")
    model = outcome.model.label()
    if outcome.scripted:
        model += "  (scripted: replies come from a script, not from an AI model)"
    lines.append(f"model:    {model}")
    if outcome.final_text:
        lines.append("answer:")
        lines.extend(f"  {line}" for line in outcome.final_text.splitlines())
    return lines


def state_lines(state: RunState) -> list[str]:
    lines = [
        f"run:      {state.run_id}",
        f"status:   {state.status}",
        f"ticket:   {state.ticket_id} (tenant {state.tenant_id})",
        f"turns:    {state.turns_used} of {state.step_budget}   tokens: {state.usage.total} "
        f"of {state.token_budget}",
        f"deadline: {state.deadline.isoformat()}",
        f"model:    {state.model.label()}",
    ]
    if state.events:
        lines.append("progress:")
        lines.extend(event_line(event) for event in state.events)
    return lines
