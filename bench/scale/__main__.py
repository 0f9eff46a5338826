"""The scale point: thousands of live runs waiting for approval on one worker.

A private `signoff dev` stack (Temporal dev server on SQLite, one worker in the launcher's
process, the store on SQLite) gets waiting refund runs, each on a refund case of its own
(`testkit/refund_cases.py`), up to each checkpoint (default 1,000, 5,000 and 10,000). Runs
start as a sliding window: at most `--in-flight` runs started and not yet waiting, well
under the worker's sticky cache, so that a run's next task finds it cached instead of
replaying it. At each checkpoint, once every started run waits (the store's read model
holds its row, and visibility's count agrees), it reports the worker's RSS now and its
peak (VmRSS, VmHWM), the dev server's, the sticky cache size in force, p50/p95 of the
first and the last page of the pending listing through every face (`bench/scale/faces.py`),
the count listed against the count started, and the start rate reached. Nothing is
decided: every run keeps waiting (approval times 6 h to 24 h, deadline 48 h).

Waiting is judged from the read model and visibility's count only, never from a run's
memo or its `state` query. `bench/results/SCALE.md` is written after each checkpoint.

    .venv/bin/python -m bench.scale [--quick] [--checkpoints 1000,5000,10000]
        [--in-flight 100] [--page-size 50] [--rounds 30] [--cli-rounds 10]
        [--cached-workflows N] [--stop-by HH:MM]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from bench.common.stopping import stop_cleanly_on_sigterm
from bench.scale.faces import face_timings, walk
from bench.scale.fill import Filling, StoppedFilling, fill_to, read_model_runs
from bench.scale.probes import (
    DEFAULT_CHECKPOINTS,
    QUICK_CHECKPOINTS,
    checkpoints,
    children_of,
    memory_of,
)
from bench.scale.report import Checkpoint, write_scale
from bench.scale.waiting_runs import TENANT
from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.service.handles import engine_of
from signoff.service.pending import waiting_query
from signoff.service.store import open_store
from signoff.wiring.local_stack import signoff_dev_stack
from testkit.refund_cases import add_refund_cases

# Visibility lags the read model (written in the hold's own transaction) by a moment.
VISIBILITY_SECONDS = 120.0


def say(text: str) -> None:
    print(f"{datetime.now(UTC):%H:%M:%S} {text}", flush=True)  # noqa: T201


def dev_server_pid(launcher_pid: int) -> int | None:
    """The Temporal dev server `signoff dev` started: its child running `start-dev`."""
    for pid in children_of(launcher_pid):
        try:
            if b"start-dev" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        except OSError:
            continue
    return None


async def visibility_count(settings: Settings, expected: int) -> int:
    client = await connect(settings)
    give_up = time.monotonic() + VISIBILITY_SECONDS
    while True:
        count = (await client.count_workflows(waiting_query(TENANT))).count
        if count >= expected or time.monotonic() > give_up:
            return count
        await asyncio.sleep(1)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoints", type=checkpoints, default=None)
    parser.add_argument("--quick", action="store_true", help="checkpoints 200,500")
    parser.add_argument("--in-flight", type=int, default=100)
    parser.add_argument("--page-size", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--cli-rounds", type=int, default=10)
    parser.add_argument("--cached-workflows", type=int, default=None)
    parser.add_argument("--stop-by", default=None, help="UTC HH:MM: start no run after it")
    found = parser.parse_args()
    if found.checkpoints is None:
        found.checkpoints = QUICK_CHECKPOINTS if found.quick else DEFAULT_CHECKPOINTS
    if found.stop_by is not None:
        hour, _, minute = found.stop_by.partition(":")
        found.stop_by = datetime.now(UTC).replace(
            hour=int(hour), minute=int(minute), second=0, microsecond=0
        )
    return found


def main() -> None:
    args = arguments()
    stop_cleanly_on_sigterm()
    home = Path(tempfile.mkdtemp(prefix="signoff-bench-scale-"))
    extra = {"SIGNOFF_PAGE_SIZE": str(args.page_size)}
    if args.cached_workflows is not None:
        extra["SIGNOFF_WORKER_MAX_CACHED_WORKFLOWS"] = str(args.cached_workflows)
    say(f"A private stack in {home}; checkpoints {args.checkpoints}.")
    with signoff_dev_stack(home, task_queue=f"bench-{uuid.uuid4().hex[:8]}", **extra) as (
        env,
        launcher,
    ):
        settings = Settings(
            home=home,
            temporal_address=env["SIGNOFF_TEMPORAL_ADDRESS"],
            task_queue=env["SIGNOFF_TASK_QUEUE"],
            page_size=args.page_size,
            # The launcher's environment is this one's and `extra`: the same settings.
            **(
                {}
                if args.cached_workflows is None
                else {"worker_max_cached_workflows": args.cached_workflows}
            ),
        )
        server_pid = dev_server_pid(launcher.pid)
        at_start = memory_of(launcher.pid)
        setup = [
            f"- stack: `signoff dev` (pid {launcher.pid}: the worker and the embedded UI; "
            f"RSS {at_start.rss_mib:.0f} MiB before the first run), Temporal dev server "
            f"(pid {server_pid}) on SQLite, store on SQLite",
            f"- sticky cache in force: {settings.worker_max_cached_workflows} runs "
            f"(SIGNOFF_WORKER_MAX_CACHED_WORKFLOWS); workflow tasks at once: "
            f"{settings.worker_max_concurrent_workflow_tasks}",
            f"- starts: at most {args.in_flight} runs in flight (started, not yet waiting); "
            f"page size {args.page_size}; {args.rounds} rounds a call "
            f"({args.cli_rounds} for the CLI, each a new process)",
        ]
        engine = engine_of(open_store(settings))  # the bench reads and seeds the store itself
        tickets = add_refund_cases(settings.resolved_database_url, TENANT, args.checkpoints[-1])
        filling = Filling(settings, engine, tickets, args.in_flight, args.stop_by, launcher)
        points: list[Checkpoint] = []
        notes: list[str] = []
        filling_seconds = 0.0
        for target in args.checkpoints:
            segment = time.monotonic()
            try:
                asyncio.run(fill_to(filling, target, say))
            except StoppedFilling as stopped:
                memory = memory_of(launcher.pid)
                notes.append(
                    f"Stopped before {target:,} waiting: {stopped}; worker RSS then "
                    f"{memory.rss_mib:.0f} MiB, peak {memory.peak_mib:.0f} MiB."
                )
                say(notes[-1])
                break
            fill_seconds = time.monotonic() - segment
            filling_seconds += fill_seconds
            say(f"{target} runs wait (read model); counting in visibility, paging, timing")
            seen = walk(engine, args.page_size)
            point = Checkpoint(
                started=filling.started,
                read_model_runs=read_model_runs(engine),
                visibility_count=asyncio.run(visibility_count(settings, target)),
                walk=seen,
                worker=memory_of(launcher.pid),
                server=memory_of(server_pid) if server_pid else None,
                fill_seconds=fill_seconds,
                elapsed_seconds=filling_seconds,
                faces=face_timings(
                    settings, engine, env, seen.last_after, args.rounds, args.cli_rounds
                ),
            )
            points.append(point)
            write_scale(points, setup, notes)
            say(
                f"checkpoint {target}: worker RSS {point.worker.rss_mib:.0f} MiB, "
                f"peak {point.worker.peak_mib:.0f} MiB; written to bench/results/SCALE.md"
            )
        if points:
            write_scale(points, setup, notes)
        engine.dispose()
    say("done")


if __name__ == "__main__":
    main()
