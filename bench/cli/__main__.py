"""How fast the command line answers: `signoff --help`, and `signoff status RUN` against a
real run on a private dev stack (issue 13: at most 0.3 s and 0.6 s on a 2-core machine).

Each command runs as a new process, as a person or a script runs it; the figures are
wall-clock times over R runs, with the bare interpreter's start beside them for scale.

    .venv/bin/python -m bench.cli [--rounds 40]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.common.stopping import stop_cleanly_on_sigterm
from signoff.wiring.local_stack import signoff_dev_stack

SIGNOFF = str(Path(sys.executable).parent / "signoff")
TARGETS = {"signoff --help": 0.3, "signoff status RUN": 0.6}


def wall(command: list[str], env: dict[str, str], rounds: int) -> tuple[float, float]:
    samples = []
    for _ in range(rounds):
        began = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        samples.append(time.perf_counter() - began)
    cuts = statistics.quantiles(samples, n=20)
    return statistics.median(samples), cuts[18]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)  # p95 of 20 is nearly the max
    rounds = parser.parse_args().rounds
    stop_cleanly_on_sigterm()
    home = Path(tempfile.mkdtemp(prefix="signoff-bench-cli-"))
    with signoff_dev_stack(home, task_queue=f"bench-{uuid.uuid4().hex[:8]}") as (env, _):
        env = {**os.environ, **env}
        started = subprocess.run(
            [SIGNOFF, "run", "--ticket", "T-1042", "--model", "scripted:answer-only", "--json"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        run_id = json.loads(started.stdout)["run_id"]
        results = {
            "python -c pass (the interpreter alone)": wall(
                [sys.executable, "-c", "pass"], env, rounds
            ),
            "signoff --help": wall([SIGNOFF, "--help"], env, rounds),
            "signoff status RUN": wall([SIGNOFF, "status", run_id], env, rounds),
        }
    print(f"{rounds} rounds each, {os.cpu_count()} cores")  # noqa: T201
    for label, (p50, p95) in results.items():
        target = TARGETS.get(label)
        goal = (
            f"  (target {target:.1f} s: {'met' if p50 <= target else 'missed'} at p50)"
            if target
            else ""
        )
        print(f"{label:40} p50 {p50:6.3f} s  p95 {p95:6.3f} s{goal}")  # noqa: T201


if __name__ == "__main__":
    main()
