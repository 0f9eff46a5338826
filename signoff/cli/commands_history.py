"""`signoff history export` and `signoff replay`: prove that code changes keep every
recorded run valid, with histories from any cluster.

`history export` writes what `temporal workflow show --output json` writes, so that
either tool's file replays. `replay` needs no server: it replays each file against the
installed workflow code (signoff/service/history_replay.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from signoff.cli.support import (
    EXIT_RUN_FAILED,
    JsonOption,
    checked_run_id,
    client_for,
    emit_json,
    fail,
    run_async,
    say,
    settings,
)
from signoff.config.data_converter import data_converter_for
from signoff.config.settings import Settings
from signoff.config.temporal_tls import TemporalSettingsError
from signoff.service.history_export import (
    ExportReport,
    QueryRejected,
    TemporalRefused,
    count_matching,
    export_matching,
    file_name,
    history_document,
    history_json,
    write_private,
)
from signoff.service.history_files import HistoryFileError, expand, load
from signoff.service.history_gates import GateReport, GateRuns, open_run_gates
from signoff.service.history_replay import ReplayVerdict, replay_histories
from signoff.service.run_reading import RunNotFound
from workflows.contract_base import tenant_id_problem

history = typer.Typer(
    help="Run histories: export them for `signoff replay`; list the gates open runs need."
)
# A line on stderr every this many runs read, on a cluster with many open runs.
GATES_PROGRESS_EVERY = 500


def register(app: typer.Typer) -> None:
    app.add_typer(history, name="history")
    app.command("replay")(replay_command)


@history.command("export")
def export_command(
    run_id: Annotated[
        str | None,
        typer.Argument(
            help="The run (workflow id), as `signoff list` shows it.", callback=checked_run_id
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o", "--output", help="File to write (a folder: RUN.json in it); default stdout."
        ),
    ] = None,
    query: Annotated[
        str | None,
        typer.Option(help="A Temporal visibility query: export every run it matches (-o DIR)."),
    ] = None,
    tenant: Annotated[
        str | None, typer.Option(help="Only a run whose own request names this tenant.")
    ] = None,
) -> None:
    """Write a run's history as JSON, as `temporal workflow show --output json` does."""
    if (run_id is None) == (query is None):
        fail("Give either a RUN id or --query 'visibility query', not both and not neither.")
    problem = tenant_id_problem(tenant) if tenant is not None else None
    if problem is not None:
        fail(problem)
    current = settings()
    if query is not None:
        if output is None or output.is_file():
            fail("--query writes one file a run: give a folder with -o DIR.")
        report = run_async(_export_many(current, query, output, tenant))
        written = len(report.written)
        say(f"{written} histor{'y' if written == 1 else 'ies'} written to {output}", err=True)
        for failure in report.failed:
            say(f"not exported: {failure}", err=True)
        raise typer.Exit(EXIT_RUN_FAILED if report.failed else 0)
    assert run_id is not None
    if output is not None and not output.is_dir() and not output.parent.is_dir():
        fail(f"Cannot write {output}: the folder {output.parent} does not exist.")
    text = run_async(_export_one(current, run_id, tenant))
    if output is None:
        sys.stdout.write(text)
        return
    path = output / file_name(run_id, None, set()) if output.is_dir() else output
    try:
        write_private(path, text)
    except OSError as error:
        fail(f"Cannot write {path}: {error.strerror or error}.")
    say(f"history of {run_id} written to {path}", err=True)


async def _export_one(current: Settings, run_id: str, tenant: str | None) -> str:
    client = await client_for(current)
    try:
        return history_json(await history_document(client, run_id, tenant))
    except RunNotFound:
        of = f" for tenant '{tenant}'" if tenant else ""
        fail(f"No run with id '{run_id}'{of}. List runs with `signoff list`.")
    except TemporalRefused as error:
        fail(f"Temporal did not give the history of {run_id}: {error}")


async def _export_many(
    current: Settings, query: str, folder: Path, tenant: str | None
) -> ExportReport:
    client = await client_for(current)
    try:
        total = await count_matching(client, query)
        say(f"{total} run{'s' if total != 1 else ''} match; exporting to {folder}", err=True)
        done = 0

        def progress(path: Path) -> None:
            nonlocal done
            done += 1
            say(f"[{done}/{total}] {path.name}", err=True)

        return await export_matching(client, query, folder, tenant, progress)
    except QueryRejected as error:
        fail(f"Temporal refused the query: {error}. See `signoff list` for ones that work.")
    except TemporalRefused as error:
        fail(f"Temporal did not list the runs: {error}")
    except OSError as error:
        fail(f"Cannot write into {folder}: {error.strerror or error}.")


@history.command("gates")
def gates_command(
    tenant: Annotated[
        str | None, typer.Option(help="Only the open runs whose tenant attribute is this one.")
    ] = None,
    gate: Annotated[
        list[str] | None,
        typer.Option(
            "--gate",
            help="A patch id to report even when no open run holds it (repeat for more).",
        ),
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """List the versioning gates (patch ids) that open runs still depend on."""
    problem = tenant_id_problem(tenant) if tenant is not None else None
    if problem is not None:
        fail(problem)
    asked = gate or []
    if any(not patch.strip() for patch in asked):
        fail("--gate needs a patch id, the string the code passes to workflow.patched().")
    report = run_async(_gates(settings(), tenant, asked, quiet=json_output))
    if json_output:
        emit_json(report.as_json())
        return
    of = f" of tenant '{tenant}'" if tenant else ""
    say(f"{report.runs} open run{'s' if report.runs != 1 else ''}{of} read.")
    if not report.gates:
        say("No open run depends on a versioning gate: none needs to stay in the code.")
    for patch, runs in sorted(report.gates.items()):
        say(f"{patch}  {gate_line(runs)}")
    for unread in report.unread:
        say(f"not read: {unread}", err=True)


def gate_line(runs: GateRuns) -> str:
    """What the policy asks of a gate: who still holds its marker (it stays), and when the
    oldest run without it started (before the deploy: it still needs the old branch)."""
    held = len(runs.holding)
    line = f"{held} open run{'s' if held != 1 else ''} hold{'s' if held == 1 else ''} it"
    line += f", e.g. {runs.holding[0]}" if runs.holding else ""
    if not runs.without:
        return line + "; every open run does"
    oldest = runs.oldest_without
    since = f", the oldest started {oldest:%Y-%m-%d %H:%M} UTC" if oldest else ""
    missing = len(runs.without)
    return line + f"; {missing} open run{'s' if missing != 1 else ''} without it{since}"


async def _gates(
    current: Settings, tenant: str | None, asked: list[str], *, quiet: bool
) -> GateReport:
    client = await client_for(current)

    def progress(read: int) -> None:
        if not quiet and read % GATES_PROGRESS_EVERY == 0:
            say(f"{read} open runs read...", err=True)

    try:
        return await open_run_gates(client, tenant, progress, asked)
    except QueryRejected as error:
        fail(f"Temporal refused the listing of open runs: {error}.")
    except TemporalRefused as error:
        fail(f"Temporal did not list the open runs: {error}")


def replay_command(
    paths: Annotated[list[Path], typer.Argument(help="History files (JSON), or folders of them.")],
    json_output: JsonOption = False,
) -> None:
    """Replay histories against the installed workflow code; exit 1 if any fails."""
    try:
        files = [load(path) for path in expand(paths)]
        # The worker's converter: an encrypted history replays with the same keys.
        converter = data_converter_for(settings())
    except (HistoryFileError, TemporalSettingsError) as error:
        fail(str(error))
    verdicts = run_async(replay_histories(files, converter))
    failed = [verdict for verdict in verdicts if not verdict.ok]
    if json_output:
        emit_json(
            {
                "total": len(verdicts),
                "ok": len(verdicts) - len(failed),
                "failed": len(failed),
                "histories": [verdict.as_json() for verdict in verdicts],
            }
        )
    else:
        for verdict in verdicts:
            say("\n".join(verdict_lines(verdict)))
        say(
            f"{len(verdicts)} histor{'y' if len(verdicts) == 1 else 'ies'} replayed: "
            f"{len(verdicts) - len(failed)} ok, {len(failed)} failed"
        )
    raise typer.Exit(EXIT_RUN_FAILED if failed else 0)


def verdict_lines(verdict: ReplayVerdict) -> list[str]:
    file = verdict.file
    what = f"({file.workflow_type} {file.workflow_id})"
    if verdict.ok:
        return [f"ok      {file.path}  {what}"]
    kind = "non-determinism" if verdict.nondeterminism else "workflow task failed"
    at = f"at event {verdict.event_id}" if verdict.event_id is not None else "event unknown"
    return [f"FAILED  {file.path}  {what}", f"        {kind} {at}: {verdict.message}"]
