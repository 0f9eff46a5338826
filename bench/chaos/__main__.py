"""Fault injection: refund runs through killed workers, a restarted server, an overloaded
model, a store that stops, and reviewers racing; what was lost, doubled, and how long
recovery took, written to `bench/results/CHAOS.md`.

One invocation starts its own Temporal dev server (on a SQLite file) and a SQLite store
in a fresh folder; each fault gets its own task queue and its own workers, and runs on
fresh orders (`testkit/refund_cases.py`). The faults (`--faults` picks some):

- kills: a worker killed (SIGKILL) at each phase of N runs, then a new worker
  (`bench/chaos/kills.py`);
- restart: the dev server stopped and started again on its file mid-run;
- model: a model answering 529 to half its calls, then to all of them
  (`bench/chaos/model.py`);
- store: PostgreSQL stopped for 10 s while refunds and reads are in flight
  (`bench/chaos/store_outage.py`);
- race: two reviewers approving the same refund at once, 5 × N times;
- stripe: N refunds through Stripe (localstripe), the worker killed after Stripe
  accepted them (`bench/chaos/stripe_kill.py`);
- outage: Stripe out for `--outage-seconds` (120) under N approved refunds, then back;
  then out past the tenant's `--give-up-after` (3m) (`bench/chaos/stripe_outage.py`).

    .venv/bin/python -m bench.chaos [--runs N] [--quick] [--faults kills,race]

`--quick` runs 3 runs a fault. A quick run, or one of only some faults, prints the table
without writing CHAOS.md; the outage alone, not quick, writes CHAOS-OUTAGE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import tempfile
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

from activities.store import make_engine, seed_demo
from bench.chaos.faults import model_down, model_half, reviewers_race, server_restart
from bench.chaos.kills import PHASES, kill_at
from bench.chaos.processes import DevServer, worker_environment
from bench.chaos.report import CHAOS, OUTAGE, write_report
from bench.chaos.runs import Bench, Row
from bench.chaos.store_outage import store_outage
from bench.chaos.stripe_kill import stripe_kill
from bench.chaos.stripe_outage import Outage, outage_preface, stripe_back, stripe_gone
from bench.common.stopping import stop_cleanly_on_sigterm
from signoff.config.decision_keys import ensure_key_ring
from signoff.config.settings import Settings
from workflows.profile_values import DURATION_PATTERN

FAULTS = ("kills", "restart", "model", "store", "race", "stripe", "outage")
QUICK_RUNS = 3
RACES_PER_RUN = 5  # 100 races for the default 20 runs


async def chaos(home: Path, faults: list[str], runs: int, outage: Outage) -> list[Row]:
    server = DevServer(home)
    server.start()
    try:
        database_url = f"sqlite:///{home / 'signoff.db'}"
        settings = Settings(
            home=home,
            temporal_address=server.address,
            database_url=database_url,
        )
        engine = make_engine(database_url)
        seed_demo(engine)
        # The bench is the decision service; its workers read the public keys in `home`.
        signer = ensure_key_ring(settings)
        settings = settings.model_copy(update={"trusted_key_ids": signer.key_id})
        bench = Bench(await server.client(), settings, signer, engine)

        def on_own_queue(name: str) -> tuple[Bench, dict[str, str]]:
            queue = f"chaos-{name}-{uuid.uuid4().hex[:6]}"
            own = replace(bench, settings=settings.model_copy(update={"task_queue": queue}))
            return own, worker_environment(own.settings)

        steps: list[tuple[str, Callable[[], Awaitable[Row]]]] = []
        if "kills" in faults:
            for phase in PHASES:
                steps.append((phase, lambda p=phase: kill_at(*on_own_queue(p), p, runs)))  # type: ignore[misc]
        if "restart" in faults:
            steps.append(
                ("restart", lambda: server_restart(*on_own_queue("restart"), server, runs))
            )
        if "model" in faults:
            steps.append(("model", lambda: model_half(*on_own_queue("model-half"), runs)))
            steps.append(("model", lambda: model_down(*on_own_queue("model-down"), runs)))
        if "store" in faults:
            steps.append(("store", lambda: store_outage(*on_own_queue("store"), runs)))
        if "race" in faults:
            steps.append(
                ("race", lambda: reviewers_race(*on_own_queue("race"), RACES_PER_RUN * runs))
            )
        if "stripe" in faults:
            steps.append(("stripe", lambda: stripe_kill(*on_own_queue("stripe"), runs)))
        if "outage" in faults:
            steps.append(
                ("outage", lambda: stripe_back(*on_own_queue("back"), runs, outage.seconds))
            )
            steps.append(
                ("outage", lambda: stripe_gone(*on_own_queue("gone"), runs, outage.give_up))
            )
        rows = []
        for name, step in steps:
            say(f"{name} ...")
            row = await step()
            doubled = "–" if row.doubled is None else row.doubled
            say(
                f"  {row.runs} runs, {row.lost} lost, {doubled} doubled, "
                f"{row.recovery_seconds:.1f} s; " + " ".join(row.notes)
            )
            rows.append(row)
        engine.dispose()
        return rows
    finally:
        server.stop()


def say(text: str) -> None:
    print(text, flush=True)  # noqa: T201


def options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs at each fault (default 20)")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_RUNS} runs a fault")
    parser.add_argument("--faults", default=",".join(FAULTS), help=", ".join(FAULTS))
    parser.add_argument(
        "--outage-seconds", type=int, default=120, help="outage: how long Stripe is out first"
    )
    parser.add_argument(
        "--give-up-after", default="3m", help="outage: the tenant's give_up_after, e.g. 3m"
    )
    arguments = parser.parse_args()
    arguments.faults = [name.strip() for name in arguments.faults.split(",") if name.strip()]
    unknown = sorted(set(arguments.faults) - set(FAULTS))
    if unknown or arguments.runs < 1:
        parser.error(f"--faults takes {', '.join(FAULTS)} (not {unknown}); --runs at least 1")
    if arguments.outage_seconds < 1 or not DURATION_PATTERN.match(arguments.give_up_after):
        parser.error('--outage-seconds at least 1; --give-up-after a duration such as "3m"')
    if arguments.quick:
        arguments.runs = QUICK_RUNS
    return arguments


def main() -> None:
    stop_cleanly_on_sigterm()
    arguments = options()
    home = Path(tempfile.mkdtemp(prefix="signoff-chaos-"))
    say(f"Private stack in {home}; {arguments.runs} runs a fault.")
    loads = os.getloadavg()
    outage = Outage(arguments.outage_seconds, arguments.give_up_after)
    rows = asyncio.run(chaos(home, arguments.faults, arguments.runs, outage))
    # Only a full invocation stands for the project's figures; the outage alone has its own.
    complete = not arguments.quick and set(arguments.faults) == set(FAULTS)
    alone = not arguments.quick and arguments.faults == ["outage"]
    path = CHAOS if complete else OUTAGE if alone else None
    text = write_report(rows, arguments, loads, path, outage_preface(outage, arguments.faults))
    say(text)
    if all(row.lost == 0 and not row.doubled for row in rows):
        shutil.rmtree(home, ignore_errors=True)
    else:
        say(f"Logs kept in {home}.")
        raise SystemExit(1)


if __name__ == "__main__":
    main()
