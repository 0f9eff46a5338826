"""The table of `python -m bench.chaos`: fault × runs × lost × doubled × max recovery time."""

from __future__ import annotations

import argparse
import subprocess
from importlib.metadata import version
from pathlib import Path

from bench.chaos.postgres import PG_CTL_GLOB
from bench.chaos.runs import FINISH_SECONDS, Row
from bench.common.machine import machine
from bench.common.paths import RESULTS_DIR

CHAOS = RESULTS_DIR / "CHAOS.md"
# `--faults outage` alone (bench/chaos/stripe_outage.py).
OUTAGE = RESULTS_DIR / "CHAOS-OUTAGE.md"


def postgres_version() -> str:
    found = sorted(Path("/").glob(PG_CTL_GLOB.lstrip("/")))
    if not found:
        return "PostgreSQL not installed"
    done = subprocess.run([str(found[-1]), "--version"], capture_output=True, text=True)
    return done.stdout.strip() or "PostgreSQL (version unknown)"


def table(rows: list[Row]) -> list[str]:
    lines = [
        "| fault | runs | lost | doubled | max recovery (s) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        doubled = "–" if row.doubled is None else str(row.doubled)
        lines.append(
            f"| {row.fault} | {row.runs} | {row.lost} | {doubled} | {row.recovery_seconds:.1f} |"
        )
    return lines


def write_report(
    rows: list[Row],
    arguments: argparse.Namespace,
    loads: tuple[float, float, float],
    path: Path | None,
    preface: list[str] | None = None,
) -> str:
    """The report; `preface`: lines said before the table (how the figures were made, if
    not by one invocation)."""
    mode = "--quick" if arguments.quick else f"--runs {arguments.runs}"
    text = "\n".join(
        [
            "# Fault injection: what a crash, a restart, an outage or a race costs",
            "",
            "Written by `python -m bench.chaos` (`make chaos`); regenerate it rather than edit it.",
            "",
            *machine(),
            f"- {postgres_version()}, anthropic {version('anthropic')}, psycopg "
            f"{version('psycopg')}; load average at the start: {loads[0]:.2f}",
            f"- mode: {mode}; faults: {', '.join(arguments.faults)}",
            "",
            *(preface or []),
            *table(rows),
            "",
            "- lost: a run that did not end as it should (a refund run: completed, with its "
            "one refund; a model fault: as named below), or a race without exactly one "
            f"winner. A run still going after {FINISH_SECONDS} s counts as lost.",
            "- doubled: an order with more than one refund row (– where no money moves).",
            "- max recovery: from the fault (the kill, the restart, the store stopping, the "
            "races sent; for the model faults, the runs' start) to the last run's end. It "
            "includes the timeouts Temporal waits out before it retries an attempt that "
            "died with its worker (model turn heartbeat 30 s, tool call 60 s, refund 10 s plus its "
            "payment platform's calls, docs/connect-stripe.md), "
            "a new worker's start, and the reviewers' decisions sent after the fault.",
            "",
            "## What each fault showed",
            "",
            *(f"- {note}" for row in rows for note in row.notes),
            "",
        ]
    )
    if path is not None:
        path.write_text(text, encoding="utf-8")
    return text
