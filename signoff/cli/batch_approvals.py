"""`signoff approve RUN RUN…`, `signoff reject --all-pending …`: several decisions at once.

What will be decided is read first, as the reviewer, and printed with a summary (count,
total per currency, count per mode); the reviewer confirms it (or passes --yes), and each
action is sent with the hash printed. Without a terminal to ask on and without --yes,
nothing is sent (exit 2). The service decides each action on its own: the CLI prints a
line per action and exits 0 when every one was decided, 1 when any was not.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import typer

from signoff.cli.batch_service import Filter, pending_matching, pending_of_runs, send_batch
from signoff.cli.decision_service import (
    NotThatReviewer,
    ServiceCredential,
    ServiceRefused,
    ServiceUnreachable,
    service_session,
)
from signoff.cli.render import what_it_does
from signoff.cli.service_http import ServiceHttp, TransportError
from signoff.cli.support import EXIT_OK, EXIT_RUN_FAILED, emit_json, fail, say
from signoff.service.batch_summary import SUCCEEDED, summary_of
from signoff.service.pending_item import PendingItem
from workflows.actions import Verdict

SHORT_HASH = 12


@dataclass(frozen=True)
class Batch:
    """What the reviewer asked for: named runs, or every pending request a filter keeps."""

    run_ids: list[str]
    chosen: Filter | None  # None: the named runs
    verdict: Verdict
    reason: str
    category: str | None
    yes: bool
    as_json: bool


def decide_several(url: str, credential: ServiceCredential, batch: Batch) -> None:
    try:
        with service_session(url, credential) as http:
            _decide(http, batch)
    except NotThatReviewer:
        fail(
            f"That API token is not '{credential.reviewer_id}''s (or was revoked). Nothing "
            "was decided; the reviewer gets a new one with `signoff user token`."
        )
    except TransportError:
        fail(str(ServiceUnreachable(url)), EXIT_RUN_FAILED)
    except ServiceRefused as refused:
        code = EXIT_RUN_FAILED if refused.status_code >= 500 else 2
        fail(f"{refused.detail} Nothing more was decided.", code)


def _decide(http: ServiceHttp, batch: Batch) -> None:
    if batch.chosen is None:
        items, problems = pending_of_runs(http, batch.run_ids)
    else:
        items, problems = pending_matching(http, batch.chosen), []
    # A named run that holds nothing to decide is a failed line of its own.
    results: list[dict[str, Any]] = [
        {"run_id": run_id, "action_hash": "", "outcome": "failed", "status": None, "message": why}
        for run_id, why in problems
    ]
    if items:
        _show_plan(items, batch.verdict)
        if not batch.yes:
            _confirm(len(items), batch.verdict)
        results += send_batch(http, items, batch.verdict, batch.reason, batch.category)
    elif not problems:
        say("Nothing waits for a decision that matches: nothing to decide.")
        raise typer.Exit(EXIT_OK)
    failures = sum(1 for result in results if result.get("outcome") not in SUCCEEDED)
    if batch.as_json:
        emit_json(results)
    else:
        for result in results:
            say(_line(result))
        say(f"{len(results) - failures} of {len(results)} decided.")
    raise typer.Exit(EXIT_RUN_FAILED if failures else EXIT_OK)


def _show_plan(items: list[PendingItem], verdict: Verdict) -> None:
    """The requests the batch would decide, and what they add up to, on stderr (stdout
    stays the outcome, or the JSON document)."""
    say(f"{'Approve' if verdict == 'approve' else 'Reject'} these requests?", err=True)
    for item in items:
        action = item.action
        say(
            f"  {item.run_id}  {what_it_does(action)}  {action.mode}  "
            f"{action.action_hash[:SHORT_HASH]}",
            err=True,
        )
    summary = summary_of(item.action for item in items)
    totals = ", ".join(f"{total} {currency}" for currency, total in summary.totals)
    modes = ", ".join(f"{count} {mode}" for mode, count in summary.modes)
    say(f"{summary.count} request(s){f': {totals}' if totals else ''}; by mode: {modes}.", err=True)


def _confirm(count: int, verdict: Verdict) -> None:
    if not sys.stdin.isatty():
        fail(
            f"No terminal to confirm on: this would {verdict} {count} request(s). Look at "
            "the list above and pass --yes to decide them. Nothing was decided."
        )
    # Asked and answered on stderr and stdin, not typer.confirm: click's prompt writes a
    # space to stdout, which holds the outcome lines (or the one JSON document).
    typer.echo(f"{verdict.capitalize()} these {count}? [y/N]: ", err=True, nl=False)
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        say("Nothing was decided.", err=True)
        raise typer.Exit(EXIT_RUN_FAILED)


def _line(result: dict[str, Any]) -> str:
    run_id, action_hash = result.get("run_id", ""), str(result.get("action_hash", ""))
    outcome = str(result.get("outcome", "failed"))
    shown = {
        "decided": str(result.get("status") or "decided"),
        "recorded": "approval recorded, needs another reviewer",
        "decide_alone": "not decided: decide it in the reviewer UI",
    }.get(outcome, "failed")
    named = f"{run_id} {action_hash[:SHORT_HASH]}".strip()
    return f"{named}: {shown}: {result.get('message', '')}"
