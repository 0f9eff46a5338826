"""`bench/results/CLI.md`: each command's wall clock (p50, p95) and CPU time (p50) as a
new process, against the target of 0.3 s at p50."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.common.paths import RESULTS_DIR
from bench.common.result_file import command_line, markdown_table, repository_relative, write_result

CLI = RESULTS_DIR / "CLI.md"

READING = (
    "How to read it. Each command runs as a new process, as a person or a script runs it. "
    "The wall clock includes any wait for a CPU; on a machine other jobs load it measures "
    "the machine as much as the command, so the CPU time the process used (what its "
    "imports and work cost) is beside it. `approve` decides a different waiting run each "
    "round: with the demo reviewer's password on stdin (the decision service checks it "
    "with argon2 on every decision, by design) and with an API token of theirs "
    "(`--token-stdin`), the credential a person who decides all day should use; its "
    "target is judged on the token. `pending` reads the store's read model alone, so the "
    "seeded rows beside the live runs are its scale point."
)


@dataclass(frozen=True)
class CliSetup:
    rounds: int  # processes a line
    live_runs: int  # runs filled and waiting on the private stack
    listed: int  # requests `signoff pending` counts: the live runs and the seeded rows
    signoff: str  # the executable timed


def write_cli(
    results: dict[str, tuple[float, float, float]],
    targets: dict[str, float],
    setup: CliSetup,
    path: Path = CLI,
    argv: list[str] | None = None,
) -> str:
    rows = []
    for label, (p50, p95, cpu) in results.items():
        target = targets.get(label)
        verdict = f"{'met' if p50 <= target else 'missed'} ({target:.1f} s)" if target else ""
        rows.append([label, f"{p50:.3f}", f"{p95:.3f}", f"{cpu:.3f}", verdict])
    return write_result(
        path,
        "The command line's start-up: each command as a new process",
        "`python -m bench.cli` (`make bench-cli`)",
        [
            f"run: `{command_line('bench.cli', argv)}`",
            f"{setup.rounds} processes a line; {setup.listed:,} requests waiting "
            f"({setup.live_runs:,} live runs on a private `signoff dev` stack, the rest "
            f"seeded in the read model); `signoff` timed: `{repository_relative(setup.signoff)}`",
        ],
        markdown_table(
            ["command", "wall p50 (s)", "wall p95 (s)", "CPU p50 (s)", "target at p50"],
            rows,
        ),
        [READING],
    )
