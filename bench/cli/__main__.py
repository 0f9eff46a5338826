"""How fast the command line answers a person typing all day: `signoff --help`, `signoff
status RUN`, `signoff pending` and `signoff approve` against N live runs waiting for
approval on a private dev stack (issue 13 and the faces issue: p50 at most 0.3 s each, at
10,000 waiting runs, on a 2-core machine).

Each command runs as a new process, as a person or a script runs it; the figures are
wall-clock times over R runs, with the bare interpreter's start beside them for scale,
and the CPU time the process used (what its imports cost, however loaded the machine).
`approve` decides a different waiting run each round, once with the demo reviewer's
password on stdin (its time includes the decision service's argon2 check of it) and
once with an API token of theirs (`--token-stdin`, what a person typing all day should
use: one request, no password check); both include the run's update.
Filling runs goes at 2 to 3 runs a second on this machine (bench/results/SCALE.md), so
`--waiting` sets how many; the listing's own cost at 10,000 is 5 to 15 ms (the same
file), the rest of a command's time is its process start and imports. `--seeded N`
adds N rows to the read model beside the live runs (copies of a waiting action,
bench/cli/read_model.py): `pending` reads the read model alone, so 10,000 rows is its
scale point in seconds instead of an hour. `--signoff PATH` times another install's
`signoff` (an older commit's, for a before and after) on the same stack and store.
It writes bench/results/CLI.md, which the docs' benchmark pages include.

    .venv/bin/python -m bench.cli [--rounds 40] [--waiting 10000] [--seeded N]
        [--signoff PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

from activities.store import Credential, demo_password, issue_token
from bench.cli.read_model import seed_copies
from bench.cli.report import CliSetup, write_cli
from bench.common.stopping import stop_cleanly_on_sigterm
from bench.scale.fill import Filling, fill_to
from bench.scale.waiting_runs import REVIEWER, TENANT
from signoff.config.settings import Settings
from signoff.service.handles import Store, engine_of
from signoff.service.pending_item import PendingItem
from signoff.service.store import open_store
from signoff.service.waiting_listing import read_pending_page
from signoff.wiring.local_stack import signoff_dev_stack
from testkit.refund_cases import add_refund_cases

SIGNOFF = str(Path(sys.executable).parent / "signoff")
TARGET_SECONDS = 0.3
APPROVE_PASSWORD = "signoff approve RUN --hash H (password)"
APPROVE_TOKEN = "signoff approve RUN --hash H (token)"
TARGETS = {
    "signoff --help": TARGET_SECONDS,
    "signoff status RUN": TARGET_SECONDS,
    "signoff pending": TARGET_SECONDS,
    APPROVE_PASSWORD: TARGET_SECONDS,
    APPROVE_TOKEN: TARGET_SECONDS,
}
IN_FLIGHT = 100
# The demo administrator (activities/store/seed.py), who issues the reviewer's token.
ADMIN = Credential("admin", demo_password("admin"), "password")


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def wall(
    commands: list[list[str]], env: dict[str, str], stdin: str | None = None
) -> tuple[float, float, float]:
    """p50 and p95 of the wall-clock time, and p50 of the CPU time the process used: on
    a machine other jobs load, the wall clock waits for the CPU, the CPU time does not."""
    samples, cpu = [], []
    for command in commands:
        began, began_cpu = time.perf_counter(), children_cpu()
        subprocess.run(command, env=env, check=True, capture_output=True, input=stdin, text=True)
        samples.append(time.perf_counter() - began)
        cpu.append(children_cpu() - began_cpu)
    cuts = statistics.quantiles(samples, n=20)
    return statistics.median(samples), cuts[18], statistics.median(cpu)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)  # p95 of 20 is nearly the max
    parser.add_argument("--waiting", type=int, default=10_000, help="runs waiting first")
    parser.add_argument(
        "--seeded", type=int, default=0, help="read-model rows added beside the live runs"
    )
    parser.add_argument("--signoff", default=SIGNOFF, help="the signoff executable to time")
    return parser.parse_args()


def main() -> None:
    args = arguments()
    # One run for status, and one run to decide per round of each approve line.
    rounds = args.rounds
    waiting = max(args.waiting, 2 * rounds + 1)
    stop_cleanly_on_sigterm()
    home = Path(tempfile.mkdtemp(prefix="signoff-bench-cli-"))
    with signoff_dev_stack(home, task_queue=f"bench-{uuid.uuid4().hex[:8]}") as (env, launcher):
        env = {**os.environ, **env}
        settings = Settings(
            home=home,
            temporal_address=env["SIGNOFF_TEMPORAL_ADDRESS"],
            task_queue=env["SIGNOFF_TASK_QUEUE"],
        )
        engine = engine_of(open_store(settings))  # the bench reads and seeds the store itself
        tickets = add_refund_cases(settings.resolved_database_url, TENANT, waiting)
        filling = Filling(settings, engine, tickets, IN_FLIGHT, None, launcher)
        asyncio.run(fill_to(filling, waiting, lambda text: print(text, flush=True)))  # noqa: T201
        items = read_pending_page(Store(engine), TENANT, 2 * rounds + 1).page.items
        seed_copies(engine, items[0], args.seeded)
        _, _, token = issue_token(engine, ADMIN, REVIEWER[0], timedelta(hours=1))
        engine.dispose()
        run_id = items[0].run_id
        signoff = args.signoff

        def approvals(decided: list[PendingItem], credential: str) -> list[list[str]]:
            return [
                [signoff, "approve", item.run_id, "--hash", item.action.action_hash]
                + ["--as", REVIEWER[0], credential, "--json"]
                for item in decided
            ]

        listed = json.loads(
            subprocess.run(
                [signoff, "pending", "--json"], env=env, check=True, capture_output=True
            ).stdout
        )
        results = {
            "python -c pass (the interpreter alone)": wall(
                [[sys.executable, "-c", "pass"]] * rounds, env
            ),
            "signoff --help": wall([[signoff, "--help"]] * rounds, env),
            "signoff status RUN": wall([[signoff, "status", run_id]] * rounds, env),
            "signoff pending": wall([[signoff, "pending"]] * rounds, env),
            APPROVE_PASSWORD: wall(
                approvals(items[1 : rounds + 1], "--password-stdin"), env, REVIEWER[1] + "\n"
            ),
            APPROVE_TOKEN: wall(approvals(items[rounds + 1 :], "--token-stdin"), env, token + "\n"),
        }
    setup = CliSetup(rounds, waiting, listed["total"], signoff)
    print(write_cli(results, TARGETS, setup))  # noqa: T201


if __name__ == "__main__":
    main()
