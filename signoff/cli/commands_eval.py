"""`signoff eval PATH...`: run scenario files on a dev server and judge the trajectories.

The command parses, loads and renders; running needs a stack, which only the wiring
may start, so `signoff/wiring/app.py` passes the function that runs them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from signoff.cli.support import EXIT_RUN_FAILED, emit_json, fail, say
from signoff.service.evals.loader import load_scenarios
from signoff.service.evals.report import as_json, columns, pass_rates
from signoff.service.evals.runner import (
    DEFAULT_ATTEMPT_SECONDS,
    AttemptResult,
    EvalPlan,
    model_ref,
)
from signoff.service.evals.scenario import ScenarioError

RunEvals = Callable[[EvalPlan, Callable[[AttemptResult], None] | None], list[AttemptResult]]
BAR_WIDTH = 30
EVIDENCE_CHARS = 300


def register(app: typer.Typer, run_evals: RunEvals) -> None:
    @app.command("eval")
    def eval_command(
        paths: Annotated[list[Path], typer.Argument(help="Scenario files or folders.")],
        as_json_output: Annotated[
            bool, typer.Option("--json", help="Print the results as JSON.")
        ] = False,
        repeat: Annotated[
            int, typer.Option(min=1, max=100, help="Attempts per scenario; pass rates.")
        ] = 1,
        timeout: Annotated[
            float,
            typer.Option(min=1, help="Seconds one attempt may take; then it is cancelled."),
        ] = DEFAULT_ATTEMPT_SECONDS,
        evidence: Annotated[
            bool, typer.Option("--evidence", help="Under the table, every check's evidence.")
        ] = False,
    ) -> None:
        """Run scenario files on a dev server and check the invariants of every trajectory.

        The dev server is a private one, or SIGNOFF_TEMPORAL_ADDRESS's. Exit 1 if any
        invariant fails, 2 on a scenario file that is not valid."""
        try:
            scenarios = load_scenarios(paths)
            for loaded in scenarios:
                model_ref(loaded.scenario.run.model)
        except ScenarioError as error:
            fail(str(error))
        total = len(scenarios) * repeat
        progress = ProgressBar(total) if sys.stderr.isatty() else None
        try:
            results = run_evals(EvalPlan(scenarios, repeat, timeout), progress)
        except ScenarioError as error:
            fail(str(error))
        if progress is not None:
            progress.done()
        if as_json_output:
            emit_json(as_json(results))
        else:
            for line in table(results, repeat, every_check=evidence):
                say(line)
        if not all(result.passed for result in results):
            raise typer.Exit(EXIT_RUN_FAILED)


class ProgressBar:
    """One line on stderr, redrawn as attempts finish; only on a terminal."""

    def __init__(self, total: int) -> None:
        self.total, self.finished, self.failed = total, 0, 0

    def __call__(self, result: AttemptResult) -> None:
        self.finished += 1
        self.failed += not result.passed
        filled = BAR_WIDTH * self.finished // max(self.total, 1)
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        typer.echo(
            f"\r[{bar}] {self.finished}/{self.total}, {self.failed} failed", err=True, nl=False
        )

    def done(self) -> None:
        typer.echo("", err=True)


def cell(passed: int, attempts: int, repeat: int) -> str:
    if attempts == 0:
        return "-"
    if repeat == 1:
        return "pass" if passed == attempts else "FAIL"
    return f"{passed}/{attempts}"


def table(results: list[AttemptResult], repeat: int, every_check: bool = False) -> list[str]:
    rates, names = pass_rates(results), columns()
    width = max([len("scenario"), *(len(name) for name in rates)])
    widths = [max(len(name), 5) for name in names]
    lines = [
        "  ".join(
            ["scenario".ljust(width), *(n.ljust(w) for n, w in zip(names, widths, strict=True))]
        )
    ]
    for scenario, row in sorted(rates.items()):
        cells = [cell(*row.get(name, (0, 0)), repeat) for name in names]
        lines.append(
            "  ".join(
                [scenario.ljust(width), *(c.ljust(w) for c, w in zip(cells, widths, strict=True))]
            )
        )
    shown = results if every_check else [result for result in results if not result.passed]
    if shown:
        lines.append("")
        lines.append("evidence:" if every_check else "evidence of the failures:")
    for result in sorted(shown, key=lambda r: (r.scenario, r.attempt)):
        where = f"{result.scenario} (attempt {result.attempt}, run {result.run_id or '-'})"
        if result.error is not None:
            lines.append(f"  {where}: run: {result.error[:EVIDENCE_CHARS]}")
        for check in result.checks:
            if every_check or not check.passed:
                mark = "" if check.passed else "FAIL "
                lines.append(
                    f"  {where}: {mark}{check.invariant}: {check.evidence[:EVIDENCE_CHARS]}"
                )
    passed = sum(result.passed for result in results)
    lines.append("")
    lines.append(f"{passed}/{len(results)} attempts passed every invariant")
    return lines
