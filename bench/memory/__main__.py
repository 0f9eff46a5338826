"""Is the worker's memory bounded with thousands of runs waiting, and if not,
what grows?

A private stack of `bench/memory/probed_dev.py` (the very `signoff dev`: Temporal dev server,
one worker and the embedded UI in one process, plus a probe) gets waiting refund runs
up to each checkpoint, as `python -m bench.scale` fills them (`bench/scale/fill.py`). At each
checkpoint, once every started run waits, it asks the probe for the process's memory
(RSS; Python's heap: allocated blocks, gc-tracked objects by type; glibc's malloc: in
use, freed but kept), then forces `--rounds` rounds of the read model's reconcile and
reads the memory before, at the peak of and after each. The worker's own periodic
reconcile is off (SIGNOFF_READ_MODEL_RECONCILE_SECONDS=0: once, at start), so the
growth between checkpoints is the filling's, and each round's is its own. At the last
checkpoint it calls malloc_trim: what RSS is freed and merely kept by glibc.

`--home DIR` keeps the stack's home (the Temporal dev server's SQLite file and the
store): run again with the same DIR, the runs still wait (approval times of 6 h to
24 h) and the next checkpoints start from them, in a new worker process.

    nice -n 10 .venv/bin/python -m bench.memory [--checkpoints 500,1500,2500,3500]
        [--rounds 2] [--in-flight 100] [--cached-workflows N] [--malloc-arena-max N]
        [--home DIR] [--stop-by HH:MM] [--out bench/results/MEMORY.md]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common.stopping import stop_cleanly_on_sigterm
from bench.memory.probed_dev import probe_dir
from bench.memory.report import MEMORY, MemoryPoint, write_memory
from bench.scale.fill import Filling, StoppedFilling, fill_to, read_model_runs
from bench.scale.probes import checkpoints
from bench.scale.waiting_runs import TENANT
from signoff.config.settings import Settings
from signoff.service.handles import engine_of
from signoff.service.store import open_store
from signoff.wiring.local_stack import signoff_dev_stack
from testkit.refund_cases import add_refund_cases

DEFAULT_CHECKPOINTS = (500, 1500, 2500, 3500)
ANSWER_SECONDS = 600.0  # a reconcile round of thousands of runs takes a while
PROBED_DEV = [sys.executable, "-m", "bench.memory.probed_dev"]


def say(text: str) -> None:
    print(f"{datetime.now(UTC):%H:%M:%S} {text}", flush=True)  # noqa: T201


def _rss_mib(shot: dict[str, Any]) -> float:
    return float(shot["status_kib"]["VmRSS"]) / 1024


class ProbeClient:
    """Requests to the probe in the stack's process, by file (`bench/memory/probed_dev.py`)."""

    def __init__(self, home: Path, launcher_poll: Any) -> None:
        self.folder = probe_dir(home)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.poll = launcher_poll
        self.number = int(time.time() * 1000)

    def ask(self, do: str) -> dict[str, Any]:
        self.number += 1
        request = self.folder / f"request-{self.number}.tmp"
        request.write_text(json.dumps({"do": do}))
        request.rename(request.with_suffix(".json"))
        answer = self.folder / f"answer-{self.number}.json"
        give_up = time.monotonic() + ANSWER_SECONDS
        while not answer.exists():
            if self.poll() is not None:
                raise RuntimeError("the stack exited before the probe answered")
            if time.monotonic() > give_up:
                raise RuntimeError(f"the probe did not answer '{do}' in {ANSWER_SECONDS:.0f} s")
            time.sleep(0.2)
        found: dict[str, Any] = json.loads(answer.read_text())
        answer.unlink()
        if "error" in found:
            raise RuntimeError(f"the probe failed '{do}': {found['error']}")
        return found


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoints", type=checkpoints, default=DEFAULT_CHECKPOINTS)
    parser.add_argument("--rounds", type=int, default=2, help="reconcile rounds a checkpoint")
    parser.add_argument("--in-flight", type=int, default=100)
    parser.add_argument("--cached-workflows", type=int, default=None)
    parser.add_argument("--malloc-arena-max", type=int, default=None)
    parser.add_argument("--home", type=Path, default=None, help="keep (or reuse) this home")
    parser.add_argument("--stop-by", default=None, help="UTC HH:MM: start no run after it")
    parser.add_argument("--out", type=Path, default=MEMORY)
    found = parser.parse_args()
    if found.stop_by is not None:
        hour, _, minute = found.stop_by.partition(":")
        found.stop_by = datetime.now(UTC).replace(
            hour=int(hour), minute=int(minute), second=0, microsecond=0
        )
    return found


def stack_home(args: argparse.Namespace) -> tuple[Path, str]:
    """The home and its task queue: a reused home keeps its queue, where its runs are."""
    home = args.home or Path(tempfile.mkdtemp(prefix="signoff-bench-memory-"))
    home.mkdir(parents=True, exist_ok=True)
    queue_file = home / "bench-task-queue"
    if not queue_file.exists():
        queue_file.write_text(f"bench-{uuid.uuid4().hex[:8]}")
    return home, queue_file.read_text().strip()


def main() -> None:
    args = arguments()
    stop_cleanly_on_sigterm()
    home, task_queue = stack_home(args)
    extra = {"SIGNOFF_READ_MODEL_RECONCILE_SECONDS": "0"}
    if args.cached_workflows is not None:
        extra["SIGNOFF_WORKER_MAX_CACHED_WORKFLOWS"] = str(args.cached_workflows)
    if args.malloc_arena_max is not None:
        extra["MALLOC_ARENA_MAX"] = str(args.malloc_arena_max)
    say(f"A private stack in {home}; checkpoints {args.checkpoints}.")
    with signoff_dev_stack(home, task_queue, PROBED_DEV, **extra) as (env, launcher):
        settings = Settings(
            home=home,
            temporal_address=env["SIGNOFF_TEMPORAL_ADDRESS"],
            task_queue=task_queue,
            **(
                {}
                if args.cached_workflows is None
                else {"worker_max_cached_workflows": args.cached_workflows}
            ),
        )
        probe = ProbeClient(home, launcher.poll)
        engine = engine_of(open_store(settings))  # the bench reads and seeds the store itself
        already = read_model_runs(engine)
        at_start = probe.ask("snapshot")
        setup = [
            f"- stack: `bench/memory/probed_dev.py` (pid {launcher.pid}: `signoff dev`'s worker "
            f"and "
            f"embedded UI, and the probe), RSS {at_start['status_kib']['VmRSS'] / 1024:.0f} MiB "
            f"at start with {already:,} runs already waiting; Temporal dev server and store "
            "on SQLite",
            f"- sticky cache: {settings.worker_max_cached_workflows} runs; the worker's own "
            "reconcile once, at start (SIGNOFF_READ_MODEL_RECONCILE_SECONDS=0); "
            f"{args.rounds} rounds forced at each checkpoint; MALLOC_ARENA_MAX "
            f"{args.malloc_arena_max or 'unset'}; at most {args.in_flight} runs in flight",
        ]
        wanted = max(0, args.checkpoints[-1] - already)
        tickets = add_refund_cases(settings.resolved_database_url, TENANT, wanted)
        # The runs already waiting (a reused home) count as started: no ticket of theirs
        # is started again.
        filling = Filling(
            settings, engine, [""] * already + tickets, args.in_flight, args.stop_by, launcher
        )
        filling.started = already
        points: list[MemoryPoint] = []
        notes: list[str] = []
        for target in args.checkpoints:
            if target <= already:
                continue
            began = time.monotonic()
            try:
                asyncio.run(fill_to(filling, target, say))
            except StoppedFilling as stopped:
                notes.append(f"Stopped before {target:,} waiting: {stopped}.")
                say(notes[-1])
                break
            point = MemoryPoint(
                waiting=read_model_runs(engine),
                fill_seconds=time.monotonic() - began,
                filled=probe.ask("snapshot"),
            )
            say(f"{point.waiting} waiting: RSS {_rss_mib(point.filled):.0f} MiB")
            for _ in range(args.rounds):
                point.rounds.append(probe.ask("reconcile"))
                after = point.rounds[-1]
                say(
                    f"  reconcile {after['seconds']:.1f} s, peak "
                    f"{(after['peak_kib'] or 0) / 1024:.0f} MiB, after "
                    f"{_rss_mib(after['after']):.0f} MiB"
                )
            points.append(point)
            write_memory(points, setup, notes, args.out)
        if points:
            points[-1].trimmed = probe.ask("trim")["after"]
            say(f"after malloc_trim: RSS {_rss_mib(points[-1].trimmed):.0f} MiB")
            write_memory(points, setup, notes, args.out)
        engine.dispose()
    say(f"done; written to {args.out}")


if __name__ == "__main__":
    main()
