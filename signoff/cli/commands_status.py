"""`signoff status RUN`: a run's status, progress and, once it ended, its outcome.

What ops type all day, so it must answer in 0.3 s (bench/cli/): it reads the run over
the Temporal frontend's HTTP API with the standard library (signoff/service/run_http.py)
and loads Temporal's SDK only where that path cannot answer (an API key, encrypted
payloads, a triage, no HTTP API): then over the bare gRPC service
(signoff/service/run_reading.py), never `temporalio.client`. `--follow` has a module
of its own. tests/cli/test_status_imports.py keeps it so.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, NoReturn

import typer

from signoff.cli.card_titles import card_titles
from signoff.cli.render import outcome_lines, shown_status, state_lines
from signoff.cli.support import (
    EXIT_RUN_FAILED,
    JsonOption,
    checked_run_id,
    emit_json,
    fail,
    run_async,
    say,
    service_for,
    settings,
)
from signoff.config.settings import Settings
from signoff.service.run_http import RunReading, read_over_http
from signoff.service.run_terms import RunNotFound, StateQueryFailed


def register(app: typer.Typer) -> None:
    app.command("status")(status_command)


def status_command(
    run_id: Annotated[
        str, typer.Argument(help="The run id printed by `signoff run`.", callback=checked_run_id)
    ],
    json_output: JsonOption = False,
    follow: Annotated[
        bool,
        typer.Option(
            "--follow",
            help="Print the run's events as they happen, one a line, until it ends; exit "
            "0 completed, 1 failed or cancelled, 130 on Ctrl-C (the run goes on).",
        ),
    ] = False,
) -> None:
    """Show a run: its status, progress and, once it ended, its outcome."""
    current = settings()
    if not follow:
        raise typer.Exit(_status(current, run_id, json_output))
    from signoff.cli.follow_run import EXIT_STOPPED_FOLLOWING, follow_status, stopped_message

    try:
        code = run_async(follow_status(current, run_id, json_output))
    except KeyboardInterrupt:
        say(stopped_message(run_id), err=True)
        code = EXIT_STOPPED_FOLLOWING
    raise typer.Exit(code)


def _status(current: Settings, run_id: str, json_output: bool) -> int:
    try:
        reading = read_over_http(current, run_id)
    except StateQueryFailed as error:
        fail(f"Run {run_id} failed its state query: {error}", EXIT_RUN_FAILED)
    if reading is None:
        return run_async(_status_over_grpc(current, run_id, json_output))
    return _show(run_id, reading, json_output)


async def _status_over_grpc(current: Settings, run_id: str, json_output: bool) -> int:
    from signoff.service.retries import retries_in
    from signoff.service.run_reading import (
        PayloadNotJson,
        describe_run,
        run_outcome,
        run_state,
    )
    from workflows.triage_contracts import TRIAGE_WORKFLOW_NAME

    temporal = await service_for(current)
    try:
        description = await describe_run(temporal, run_id)
    except RunNotFound:
        _not_found(run_id)
    if description.workflow_type == TRIAGE_WORKFLOW_NAME:  # `signoff triage`'s own
        from signoff.cli.triage_status import triage_status

        return await triage_status(temporal, description, json_output)
    reading = RunReading("CANCELED" if description.cancelled else "FAILED")
    try:
        if description.running:
            try:
                state = await run_state(temporal, run_id)
            except StateQueryFailed as error:
                fail(f"Run {run_id} failed its state query: {error}", EXIT_RUN_FAILED)
            reading = RunReading("RUNNING", retries_in(description.raw), state=state)
        elif description.completed:
            reading = RunReading("COMPLETED", outcome=await run_outcome(temporal, description))
    except PayloadNotJson as error:
        fail(f"Cannot read run {run_id}: {error}")
    return _show(run_id, reading, json_output)


def _show(run_id: str, reading: RunReading, json_output: bool) -> int:
    if reading.status == "RUNNING" and reading.state is None:
        fail(f"Run {run_id} is running but no worker answered. Is `signoff worker` running?")
    state, outcome, retries = reading.state, reading.outcome, reading.retries
    status = shown_status(reading.cancelled, outcome, state, retries)
    if json_output:
        emit_json(
            {
                "run_id": run_id,
                "status": status,
                "retrying": [asdict(retry) for retry in retries],
                "state": state.model_dump(mode="json") if state else None,
                "outcome": outcome.model_dump(mode="json") if outcome else None,
            }
        )
    elif outcome is not None:
        say("\n".join(outcome_lines(outcome)))
    elif state is not None:
        titles = card_titles(settings(), (action.tool for action in state.pending_actions))
        lines = state_lines(state, titles)
        say("\n".join(lines + [f"retrying: {retry.line()}" for retry in retries]))
    else:
        say(f"run:      {run_id}\nstatus:   {status}")
    return EXIT_RUN_FAILED if status in ("failed", "cancelled") else 0


def _not_found(run_id: str) -> NoReturn:
    fail(f"No run with id '{run_id}'. List runs with `signoff list`.")
