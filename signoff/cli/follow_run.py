"""`signoff status RUN --follow`: the run's events as they happen, then its outcome.

The events are the run page's (signoff/service/run_watch.py): learned from the run's
history as it grows, never by asking the run on a timer. Each is printed once, one
line each (with --json, one JSON object a line, the last one the status). The command
exits with the run's outcome: 0 completed, 1 failed or cancelled, 2 bad input, and 130
when the person stops following with Ctrl-C, which never touches the run.
"""

from __future__ import annotations

import json

from signoff.cli.render import event_line, outcome_lines, shown_status
from signoff.cli.support import EXIT_RUN_FAILED, fail, say, service_for
from signoff.config.settings import Settings
from signoff.config.temporal_service import TemporalService
from signoff.service.run_reading import (
    PayloadNotJson,
    RunNotFound,
    StateQueryFailed,
    describe_run,
    run_outcome,
    run_state,
)
from signoff.service.run_watch import history_batches, watch_run
from workflows.contracts import RunEvent, RunOutcome, RunState

# 128 + SIGINT, as a shell reports a command Ctrl-C stopped: not the run's outcome.
EXIT_STOPPED_FOLLOWING = 130


def stopped_message(run_id: str) -> str:
    return (
        f"Stopped following run {run_id}; the run goes on. "
        f"Follow it again with: signoff status {run_id} --follow"
    )


def _event(event: RunEvent, json_output: bool) -> str:
    if json_output:
        return json.dumps(event.model_dump(mode="json"))
    return event_line(event)


async def follow_status(current: Settings, run_id: str, json_output: bool) -> int:
    temporal = await service_for(current)
    try:
        await describe_run(temporal, run_id)
    except RunNotFound:
        fail(f"No run with id '{run_id}'. List runs with `signoff list`.")

    async def read_state() -> RunState | None:
        try:
            return await run_state(temporal, run_id)
        except (StateQueryFailed, PayloadNotJson):
            return None  # said once the run has ended, from its close event

    if not json_output:
        say(f"following run {run_id} (Ctrl-C stops following; the run goes on)")
    batches = history_batches(temporal.service.workflow_service, temporal.namespace, run_id)
    async for change in watch_run(batches, read_state):
        for event in change.events:
            say(_event(event, json_output))
    return await _ended(temporal, run_id, json_output)


async def _ended(temporal: TemporalService, run_id: str, json_output: bool) -> int:
    description = await describe_run(temporal, run_id)
    outcome: RunOutcome | None = None
    if description.completed:
        try:
            outcome = await run_outcome(temporal, description)
        except PayloadNotJson as error:
            fail(f"Cannot read run {run_id}: {error}")
    status = shown_status(description.cancelled, outcome, None, [])
    if json_output:
        document = {
            "run_id": run_id,
            "status": status,
            "outcome": outcome.model_dump(mode="json") if outcome else None,
        }
        say(json.dumps(document))
    elif outcome is not None:
        say("\n".join(outcome_lines(outcome)))
    else:
        say(f"run:      {run_id}\nstatus:   {status}")
    return 0 if status == "completed" else EXIT_RUN_FAILED
