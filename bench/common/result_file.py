"""A result file of `bench/results/`, as the docs' benchmark pages include it: a title,
who wrote it, the machine, what was run, then the table and any notes.

The command line is the one this process was started with, so that a file says what was
run (a `--rounds 50` included) rather than what the bench would run by default.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from bench.common.machine import machine
from bench.common.paths import ROOT


def command_line(module: str, argv: Sequence[str] | None = None) -> str:
    """`python -m MODULE ARGS…` as this process was started, paths inside the
    repository given relative to it."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    return shlex.join(["python", "-m", module, *(repository_relative(a) for a in arguments)])


def repository_relative(text: str) -> str:
    path = Path(text)
    if path.is_absolute() and path.is_relative_to(ROOT):
        return str(path.relative_to(ROOT))
    return text


def niceness() -> list[str]:
    """A bench run under `nice` waits behind the machine's other jobs: its wall clock
    says so in the file, where the command line cannot."""
    level = os.nice(0)
    return [f"- ran under `nice -n {level}`"] if level else []


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    if any(len(row) != len(header) for row in rows):
        raise ValueError(f"every row needs {len(header)} cells: {header}")
    return [
        "| " + " | ".join(header) + " |",
        "|" + " --- |" * len(header),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def write_result(
    path: Path,
    title: str,
    written_by: str,
    options: Sequence[str],
    table: Sequence[str],
    notes: Sequence[str] = (),
) -> str:
    """Write the file and return its text. `written_by` names the command (and its make
    target); `options` are list items that say what was run and on what."""
    text = "\n".join(
        [
            f"# {title}",
            "",
            f"Written by {written_by}; regenerate it rather than edit it.",
            "",
            *machine(),
            *(f"- {option}" for option in options),
            *niceness(),
            "",
            *table,
            "",
            *(line for note in notes for line in (note, "")),
        ]
    )
    path.write_text(text, encoding="utf-8")
    return text
