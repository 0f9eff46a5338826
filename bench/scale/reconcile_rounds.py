"""What a round of the inbox's read-model reconcile costs at N waiting runs: the full
round (every waiting run listed, a page at a time) and the incremental one (only the
runs closed since the last round), on a private dev stack.

Filling live runs goes at 2 to 3 a second (bench/results/SCALE.md), so the N waiting
runs are stand-ins: one real run is filled to get a real waiting action, then N runs of
signoff's workflow type are started on a task queue no worker polls, each publishing
what a waiting run publishes (status `waiting_for_approval`, its tenant, the hash it
waits on), with the read model's row for each (bench/cli/read_model.py). To a reconcile
they are what waiting runs are: it reads only visibility and the store, and queries a
run only when its row and its published hashes differ (none do here). Then:

- full rounds over all of them (`reconcile_waiting`), which must change nothing;
- incremental rounds with nothing closed since (`reconcile_closed`);
- `--closed` of them terminated, and an incremental round since just before, which must
  remove exactly their rows.

It writes bench/results/RECONCILE.md.

    .venv/bin/python -m bench.scale.reconcile_rounds [--waiting 10000] [--rounds 3] [--closed 100]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine
from temporalio.client import Client
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from activities.store.waiting_repair import ReconcileCounts
from bench.cli.read_model import seed_copies
from bench.common.paths import RESULTS_DIR
from bench.common.result_file import command_line, markdown_table, write_result
from bench.common.stopping import stop_cleanly_on_sigterm
from bench.scale.fill import Filling, fill_to
from bench.scale.waiting_runs import TENANT
from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.service.handles import Store, engine_of
from signoff.service.store import open_store
from signoff.service.waiting_listing import read_pending_page
from signoff.service.waiting_reconcile import closed_query, reconcile_closed, reconcile_waiting
from signoff.wiring.local_stack import signoff_dev_stack
from testkit.refund_cases import add_refund_cases
from workflows.contracts import WORKFLOW_NAME
from workflows.run_outcome import PENDING_KEY, STATUS_KEY, TENANT_KEY

RESULTS = RESULTS_DIR / "RECONCILE.md"
UNPOLLED = "bench-reconcile-unpolled"  # no worker polls it: the stand-ins never run
STARTS_IN_FLIGHT = 50
VISIBILITY_WAIT_SECONDS = 120.0
GRACE = timedelta(seconds=5)


def say(text: str) -> None:
    print(text, flush=True)  # noqa: T201


async def start_stand_ins(client: Client, copies: list[tuple[str, str]], tenant: str) -> None:
    gate = asyncio.Semaphore(STARTS_IN_FLIGHT)
    started = 0

    async def start(run_id: str, action_hash: str) -> None:
        nonlocal started
        attributes = TypedSearchAttributes(
            [
                SearchAttributePair(STATUS_KEY, "waiting_for_approval"),
                SearchAttributePair(TENANT_KEY, tenant),
                SearchAttributePair(PENDING_KEY, [action_hash]),
            ]
        )
        async with gate:
            await client.start_workflow(
                WORKFLOW_NAME, id=run_id, task_queue=UNPOLLED, search_attributes=attributes
            )
        started += 1
        if started % 1_000 == 0:
            say(f"  {started:,} stand-ins started")

    await asyncio.gather(*(start(run_id, action_hash) for run_id, action_hash in copies))


async def count_visible(client: Client, query: str, expected: int) -> None:
    """Wait until visibility lists `expected` runs for `query` (it lags the starts)."""
    deadline = time.monotonic() + VISIBILITY_WAIT_SECONDS
    while (found := (await client.count_workflows(query)).count) < expected:
        if time.monotonic() > deadline:
            raise SystemExit(f"visibility lists {found} of {expected} runs for {query!r}")
        await asyncio.sleep(0.5)


async def timed(
    rounds: int, round_: Callable[[], Awaitable[ReconcileCounts]]
) -> tuple[list[float], list[ReconcileCounts]]:
    seconds, answers = [], []
    for _ in range(rounds):
        began = time.perf_counter()
        answers.append(await round_())
        seconds.append(time.perf_counter() - began)
    return seconds, answers


async def measure(
    settings: Settings, engine: Engine, copies: list[tuple[str, str]], args: argparse.Namespace
) -> list[str]:
    client = await connect(settings)
    say(f"Starting {len(copies):,} stand-in waiting runs.")
    await start_stand_ins(client, copies, TENANT)
    waiting = f"WorkflowType = '{WORKFLOW_NAME}' AND ExecutionStatus = 'Running'"
    await count_visible(client, waiting, len(copies))

    say("Full rounds.")
    full, full_counts = await timed(args.rounds, lambda: reconcile_waiting(client, engine, GRACE))
    say("Incremental rounds, nothing closed.")
    since = datetime.now(UTC) - GRACE
    quiet, quiet_counts = await timed(args.rounds, lambda: reconcile_closed(client, engine, since))

    say(f"Terminating {args.closed} of them.")
    since = datetime.now(UTC) - GRACE
    for run_id, _ in copies[: args.closed]:
        await client.get_workflow_handle(run_id).terminate(reason="bench: closed while waiting")
    await count_visible(client, closed_query(since), args.closed)
    after_close, close_counts = await timed(1, lambda: reconcile_closed(client, engine, since))
    expected = {
        "a full round": (full_counts, ReconcileCounts()),
        "an incremental round with nothing closed": (quiet_counts, ReconcileCounts()),
        "the incremental round after the closes": (
            close_counts,
            ReconcileCounts(removed=args.closed),
        ),
    }
    for what, (got, wanted) in expected.items():
        if any(counts != wanted for counts in got):
            raise SystemExit(f"{what} changed the read model: {got}, expected {wanted}")

    def row(label: str, seconds: list[float], counts: list[ReconcileCounts]) -> list[str]:
        shown = ", ".join(f"{s * 1000:,.0f}" for s in seconds)
        last = counts[-1]
        changed = f"{last.added} added, {last.removed} removed, {last.updated} updated"
        return [label, f"{statistics.median(seconds) * 1000:,.0f}", shown, changed]

    return markdown_table(
        ["round", "median (ms)", "each round (ms)", "what the last one changed"],
        [
            row(f"full, {len(copies):,} waiting", full, full_counts),
            row("incremental, none closed since", quiet, quiet_counts),
            row(f"incremental, {args.closed} closed since", after_close, close_counts),
        ],
    )


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waiting", type=int, default=10_000, help="stand-in waiting runs")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each kind")
    parser.add_argument("--closed", type=int, default=100, help="runs terminated before the last")
    args = parser.parse_args()
    if args.waiting < 1 or args.rounds < 1 or not 0 < args.closed <= args.waiting:
        parser.error("--waiting and --rounds must be at least 1, --closed from 1 to --waiting")
    return args


def main() -> None:
    args = arguments()
    stop_cleanly_on_sigterm()
    home = Path(tempfile.mkdtemp(prefix="signoff-bench-reconcile-"))
    say(f"A private stack in {home}.")
    # The stack's worker reconciles once, at its start; the bench runs every other round.
    with signoff_dev_stack(
        home, task_queue=f"bench-{uuid.uuid4().hex[:8]}", SIGNOFF_READ_MODEL_RECONCILE_SECONDS="0"
    ) as (env, launcher):
        settings = Settings(
            home=home,
            temporal_address=env["SIGNOFF_TEMPORAL_ADDRESS"],
            task_queue=env["SIGNOFF_TASK_QUEUE"],
        )
        engine = engine_of(open_store(settings))
        tickets = add_refund_cases(settings.resolved_database_url, TENANT, 1)
        asyncio.run(fill_to(Filling(settings, engine, tickets, 1, None, launcher), 1, say))
        model = read_pending_page(Store(engine), TENANT, 1).page.items[0]
        copies = seed_copies(engine, model, args.waiting)
        table = asyncio.run(measure(settings, engine, copies, args))
    text = write_result(
        RESULTS,
        "The read model's reconcile: a round at N waiting runs",
        "`python -m bench.scale.reconcile_rounds` (`make bench-reconcile`)",
        [
            f"run: `{command_line('bench.scale.reconcile_rounds')}`",
            f"{args.waiting:,} stand-in waiting runs and their read-model rows (see the "
            f"module note), {args.rounds} rounds of each kind",
        ],
        table,
    )
    say(text)


if __name__ == "__main__":
    main()
