"""`signoff status` of a triage (`signoff triage`'s workflow), and its outcome's lines.

A triage is not an agent run: it has no `state` query and its result is a
`TriageOutcome`. Status reads it by the workflow's type, which the run's description
names: while it classifies, it says so; once it ended, it prints what `signoff triage`
prints (the class, the answer or the agent run it started). Exit 1 when it failed or
was cancelled, as for a run.
"""

from __future__ import annotations

from signoff.cli.support import EXIT_RUN_FAILED, emit_json, fail, say
from signoff.config.temporal_service import TemporalService
from signoff.service.run_reading import PayloadNotJson, RunDescription, completed_result
from workflows.triage_contracts import TriageOutcome

KIND = "triage"


def triage_lines(outcome: TriageOutcome) -> list[str]:
    lines = [f"triage:   {outcome.triage_id}", f"status:   {outcome.status}"]
    if outcome.category:
        lines.append(f"class:    {outcome.category} (urgency {outcome.urgency})")
        lines.append(f"summary:  {outcome.summary}")
    if outcome.answer:
        lines.append(f"answer:   {outcome.answer}")
    if outcome.agent_run_id:
        lines.append(
            f"agent:    {outcome.agent_run_id} started; follow it with "
            f"`signoff status {outcome.agent_run_id}`"
        )
    if outcome.detail:
        lines.append(f"detail:   {outcome.detail}")
    model = outcome.model.label() + ("  (scripted)" if outcome.scripted else "")
    lines.append(f"model:    {model}")
    return lines


async def triage_status(
    temporal: TemporalService, description: RunDescription, json_output: bool
) -> int:
    """Print the triage `description` names; the exit code."""
    triage_id = description.run_id
    outcome: TriageOutcome | None = None
    status: str
    if description.completed:
        try:
            outcome = await completed_result(temporal, description, TriageOutcome)
        except PayloadNotJson as error:
            fail(f"Cannot read triage {triage_id}: {error}")
        status = outcome.status
    elif description.running:
        status = "running"
    else:  # failed, terminated or timed out from outside: Temporal's own word
        status = "cancelled" if description.cancelled else "failed"
    if json_output:
        emit_json(
            {
                "run_id": triage_id,
                "kind": KIND,
                "status": status,
                "outcome": outcome.model_dump(mode="json") if outcome else None,
            }
        )
    elif outcome is not None:
        say("\n".join(triage_lines(outcome)))
    elif status == "running":
        say(f"triage:   {triage_id}\nstatus:   running (classifying the ticket)")
    else:
        say(f"triage:   {triage_id}\nstatus:   {status}")
    return EXIT_RUN_FAILED if status in ("failed", "cancelled") else 0
