"""signoff's scripted refund run against raw Temporal workflows of the same shape.

One invocation starts a private `signoff dev` stack (Temporal dev server on its SQLite
file, the store seeded) and one worker process per side on its own task queue: signoff's
`AgentRun`; the raw baseline (`bench/runs/raw_refund.py`, signoff's own activities); and
with `--baseline minimal`, the minimal hand-written one (`bench/runs/minimal_workflow.py`,
activities of its own on the same ledger). Each run gets a fresh order and ticket
(`testkit/refund_cases.py`); each is approved as soon as it waits. Then, alternating the
sides batch by batch so that the machine's load falls on all alike:

- throughput (runs/s) and end-to-end p50/p95 at `--concurrency`;
- at concurrency 1: decision accepted → refund row, the `decide` call, decision
  accepted → run closed;
- worker CPU per run (from /proc, during each side's batches) and peak RSS (VmHWM);
- history events and bytes per run (fetched histories);

and the ratios, written to `bench/results/RESULTS.md`.

    .venv/bin/python -m bench.runs [--quick] [--baseline minimal] [--runs N] [--concurrency C]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from activities.store import make_engine
from bench.common.paths import ROOT
from bench.runs.report import BASELINE_NAMES, NOTES, RESULTS, SideFigures, write_results
from bench.runs.samples import (
    KINDS,
    TENANT,
    Kind,
    Sides,
    accepted_at,
    decision_to_close_ms,
    decision_to_effect_ms,
    history_size,
    keep_history,
    many_runs,
    one_run,
    phases_of,
    refund_row_at,
    turn_order,
)
from bench.runs.workers import READY
from signoff.config.decision_keys import load_signer
from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.wiring.local_stack import signoff_dev_stack
from testkit.refund_cases import add_refund_cases

TICKS = os.sysconf("SC_CLK_TCK")
WARM_UP_RUNS = 3
HISTORIES_PER_SIDE = 5


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def start_worker(kind: Kind, queue: str, env: dict[str, str], home: Path) -> subprocess.Popen[str]:
    log = (home / f"worker-{kind}.log").open("w")
    worker = subprocess.Popen(
        [sys.executable, "-m", "bench.runs.workers", kind, queue],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    assert worker.stdout is not None
    if worker.stdout.readline().strip() != READY:
        raise SystemExit(f"the {kind} worker did not start; see {home}/worker-{kind}.log")
    return worker


async def measure(
    settings: Settings,
    workers: dict[Kind, subprocess.Popen[str]],
    queues: dict[Kind, str],
    arguments: argparse.Namespace,
) -> dict[Kind, SideFigures]:
    kinds: tuple[Kind, ...] = tuple(queues)
    engine = make_engine(settings.resolved_database_url)
    sides = Sides(await connect(settings), settings, load_signer(settings), queues, engine)
    figures = {kind: SideFigures() for kind in kinds}
    per_side = WARM_UP_RUNS + arguments.runs + arguments.latency_runs
    count = len(kinds) * per_side
    tickets = iter(add_refund_cases(settings.resolved_database_url, TENANT, count))
    for kind in kinds:  # warm-up: imports, caches, connections; not measured
        await many_runs(sides, kind, [next(tickets) for _ in range(WARM_UP_RUNS)], WARM_UP_RUNS)
    batch = max(1, arguments.runs // arguments.rounds)
    for round_number in range(arguments.rounds):
        for kind in turn_order(kinds, round_number):
            side, pid = figures[kind], workers[kind].pid
            cpu_before, began = cpu_seconds(pid), time.perf_counter()
            samples = await many_runs(
                sides, kind, [next(tickets) for _ in range(batch)], arguments.concurrency
            )
            side.busy_seconds += time.perf_counter() - began
            side.cpu_seconds += cpu_seconds(pid) - cpu_before
            side.runs += len(samples)
            side.latencies += [sample.seconds for sample in samples]
            for sample in samples[:HISTORIES_PER_SIDE]:
                size = await history_size(sides.client, sample.run_id)
                side.history_events.append(size.events)
                side.history_bytes.append(size.bytes)
                if not side.event_types:
                    side.event_types, side.event_bytes = size.types, size.kinds
                    if arguments.histories is not None:
                        keep_history(size.history, arguments.histories / f"{kind}.json")
    try:
        for number in range(arguments.latency_runs):
            for kind in turn_order(kinds, number):
                sample = await one_run(sides, kind, next(tickets))
                history = await sides.client.get_workflow_handle(sample.run_id).fetch_history()
                accepted, refund_row = accepted_at(history), refund_row_at(engine, sample)
                side = figures[kind]
                side.decision_to_effect_ms.append(decision_to_effect_ms(refund_row, accepted))
                for phase, ms in phases_of(history, sample, refund_row).items():
                    side.decision_phases.setdefault(phase, []).append(ms)
                side.decision_to_close_ms.append(decision_to_close_ms(sample, accepted))
                side.decide_ms.append(sample.decide_seconds * 1000)
    finally:
        engine.dispose()
    return figures


def start_profilers(workers: dict[Kind, subprocess.Popen[str]], folder: Path | None) -> list[Any]:
    """py-spy on each worker (collapsed stacks, `--profile DIR`); py-spy is among the dev extras."""
    if folder is None:
        return []
    folder.mkdir(parents=True, exist_ok=True)
    spy = str(Path(sys.executable).parent / "py-spy")
    return [
        subprocess.Popen(
            [spy, "record", "--pid", str(worker.pid), "--format", "raw", "--rate", "200"]
            + ["--nonblocking", "--output", str(folder / f"worker-{kind}.txt")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for kind, worker in workers.items()
    ]


def stop_profilers(profilers: list[Any]) -> None:
    for profiler in profilers:
        profiler.send_signal(signal.SIGINT)  # py-spy writes its file on Ctrl-C
        profiler.wait(timeout=60)


def options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few runs: a shared machine")
    parser.add_argument("--runs", type=int, default=200, help="measured runs per side")
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=4, help="alternations per side")
    parser.add_argument("--latency-runs", type=int, default=30, help="at concurrency 1")
    parser.add_argument("--profile", type=Path, help="folder for py-spy profiles of both workers")
    parser.add_argument(
        "--histories", type=Path, help="folder for one history of each side, as JSON"
    )
    parser.add_argument(
        "--baseline",
        choices=["minimal"],
        help="add the minimal hand-written baseline (its own activities) beside the raw one",
    )
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.runs, arguments.concurrency, arguments.rounds = 40, 10, 4
        arguments.latency_runs = 8
    return arguments


def main() -> None:
    arguments = options()
    loads = os.getloadavg()
    home = Path(tempfile.mkdtemp(prefix="signoff-bench-runs-"))
    print(f"Private stack in {home}; {arguments.runs} runs a side.", flush=True)  # noqa: T201
    with signoff_dev_stack(home, task_queue=f"bench-dev-{uuid.uuid4().hex[:6]}") as (env, _):
        settings = Settings(home=home, temporal_address=env["SIGNOFF_TEMPORAL_ADDRESS"])
        workers: dict[Kind, subprocess.Popen[str]] = {}
        try:
            kinds: tuple[Kind, ...] = KINDS + (("minimal",) if arguments.baseline else ())
            queues = {kind: f"bench-{kind}-{uuid.uuid4().hex[:6]}" for kind in kinds}
            for kind in kinds:
                workers[kind] = start_worker(kind, queues[kind], env, home)
            profilers = start_profilers(workers, arguments.profile)
            try:
                figures = asyncio.run(measure(settings, workers, queues, arguments))
            finally:
                stop_profilers(profilers)
            for kind in kinds:
                figures[kind].peak_rss_mib = peak_rss_mib(workers[kind].pid)
        finally:
            for worker in workers.values():
                worker.terminate()
                worker.wait(timeout=30)
    notes = [
        f"A machine shared with other jobs (load average {loads[0]:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end, on {os.cpu_count()} cores): absolute "
        "numbers are noisy; the ratios, measured in the same run with the sides "
        "alternating, are what count.",
        *NOTES,
    ]
    settings_line = (
        f"mode: {'--quick' if arguments.quick else 'full'}; {arguments.runs} runs a side at "
        f"concurrency {arguments.concurrency} in {arguments.rounds} alternating batches, "
        f"{arguments.latency_runs} a side at concurrency 1"
    )
    # Profiled figures are not the benchmark's: they go beside the profiles.
    path = arguments.profile / "RESULTS.md" if arguments.profile else RESULTS
    baselines = {BASELINE_NAMES[kind]: figures[kind] for kind in kinds if kind != "signoff"}
    text = write_results(figures["signoff"], baselines, settings_line, notes, path)
    print(text)  # noqa: T201


if __name__ == "__main__":
    main()
