"""`signoff eval`, registered from the wiring: the command module parses and renders,
and only the wiring may start the stack the scenarios run on.

`register(app)` has the shape every command module has, so the command can be listed
among the others (lazily, where the entry point loads commands on demand).
"""

from __future__ import annotations

from collections.abc import Callable

import typer

from signoff.cli import commands_eval
from signoff.service.evals.runner import AttemptResult, EvalPlan


def run_evals(
    plan: EvalPlan, progress: Callable[[AttemptResult], None] | None
) -> list[AttemptResult]:
    # The stack and the fault workers pull in the worker's imports: only when it runs.
    from signoff.wiring.eval_stack import run_evals as run_on_a_stack

    return run_on_a_stack(plan, progress)


def register(app: typer.Typer) -> None:
    commands_eval.register(app, run_evals)
