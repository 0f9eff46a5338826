"""The inbox listing against real waiting runs: memo listing against one query per run.

A private `signoff dev` stack (Temporal dev server, worker, SQLite) gets N runs, each on
a refund ticket and order of its own (`testkit/refund_cases.py`); each proposes a refund
and waits for a decision, with an approval time of its own (shuffled), so that expiry
order is not start order. Then, p50/p95 of:
the listing the inbox uses (one visibility call, pending actions read from each run's
memo), the listing it replaced (the same visibility call, then the `state` query of
every waiting run), the paged listing (issue 15: the count query beside the full
listing, sorted by expiry), and the whole `GET /approvals` page and `GET /api/approvals`
through FastAPI's TestClient, the first page and the last, which now read the store's
read model (issue 13; no listing cache). It also reports, without asserting, whether the
visibility listing holds: the count, the soonest expiry first, and every request once
when `next` is followed.

    .venv/bin/python bench/inbox_live.py [--runs 1000] [--rounds 30] [--page-size 50]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import uuid
from pathlib import Path

from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from approvals_ui.main import create_app  # noqa: E402
from bench.stopping import stop_cleanly_on_sigterm  # noqa: E402
from bench.waiting_runs import TENANT, refund_request, sign_in, timings  # noqa: E402
from signoff.config.settings import Settings  # noqa: E402
from signoff.config.temporal_client import connect  # noqa: E402
from signoff.service.pending import list_pending, waiting_query  # noqa: E402
from signoff.service.pending_cursor import pending_page, position_of  # noqa: E402
from signoff.service.pending_pages import read_pending  # noqa: E402
from signoff.service.runs import start_run  # noqa: E402
from signoff.wiring.local_stack import signoff_dev_stack  # noqa: E402
from testkit.refund_cases import add_refund_cases  # noqa: E402

STARTS_AT_ONCE = 50


async def start_runs(settings: Settings, count: int) -> None:
    """Starts the runs a batch at a time, each batch once the one before waits.

    All at once, thousands of runs would be in flight together, far more than the
    worker's sticky cache holds: every workflow task would replay its run from history,
    and the runs would creep to their approval at a few a minute. Waves are also how
    tickets arrive: the inbox fills over a weekend, not in one second.
    """
    tickets = add_refund_cases(settings.resolved_database_url, TENANT, count)
    client = await connect(settings)
    began = time.monotonic()
    # A loaded 2-core machine settles about one run a second; half an hour at least.
    wait_limit = max(30 * 60, 2.0 * count)
    for first in range(0, count, STARTS_AT_ONCE):
        batch = tickets[first : first + STARTS_AT_ONCE]
        await asyncio.gather(
            *(
                start_run(client, refund_request(settings, ticket), settings.task_queue)
                for ticket in batch
            )
        )
        started = first + len(batch)
        while (listed := await client.count_workflows(waiting_query(TENANT))).count < started:
            if time.monotonic() - began > wait_limit:
                raise SystemExit(f"the runs did not all reach their approval in {wait_limit:.0f} s")
            await asyncio.sleep(1)
        print(f"  {listed.count}/{count} runs wait for a decision", flush=True)  # noqa: T201


async def listings(settings: Settings, count: int, rounds: int) -> dict[str, tuple[float, float]]:
    client = await connect(settings)
    run_ids = [item.run_id for item in await list_pending(client, TENANT)]
    assert len(run_ids) >= count, f"{len(run_ids)} pending actions listed, {count} expected"

    async def by_memo() -> object:
        return await list_pending(client, TENANT)

    async def by_query() -> object:
        return await list_pending(client, TENANT, trust_memo=False)

    async def paged() -> object:
        listing = await read_pending(client, TENANT)
        return pending_page(listing.items, position_of, settings.page_size, None)

    async def counted() -> object:
        return await client.count_workflows(waiting_query(TENANT))

    return {
        "memo listing (the inbox's)": await timings(by_memo, rounds),
        "one query per run (before)": await timings(by_query, rounds),
        "count query alone": await timings(counted, rounds),
        "paged: count + all, by expiry": await timings(paged, rounds),
    }


async def paged_checks(settings: Settings, count: int) -> list[str]:
    """Does the paged listing hold at this size? Reported, not asserted."""
    client = await connect(settings)
    listing = await read_pending(client, TENANT)
    seen, after, pages = [], None, 0
    while True:
        page = pending_page(listing.items, position_of, settings.page_size, after)
        seen += [position_of(item) for item in page.items]
        pages += 1
        if page.next is None:
            break
        after = page.next
    soonest = min(item.action.expires_at for item in listing.items)
    return [
        f"count query: {listing.waiting_runs} waiting runs ({count} started); "
        f"{len(listing.items)} pending actions listed, {listing.unread_runs} runs unread",
        f"soonest expiry first: {listing.items[0].action.expires_at == soonest}",
        f"following next: {pages} pages of {settings.page_size}, {len(seen)} requests, "
        f"{len(set(seen))} distinct, in expiry order: {seen == sorted(seen)}",
    ]


def page_timings(settings: Settings, rounds: int, label: str) -> dict[str, tuple[float, float]]:
    """The inbox and the API, first page and last page (reached by following `next`)."""
    with TestClient(create_app(settings)) as client:
        sign_in(client)
        last_after, after = None, None
        while True:
            listed = client.get("/api/approvals", params={"after": after} if after else {})
            assert listed.status_code == 200, listed.text
            if listed.json()["next"] is None:
                last_after = after
                break
            after = listed.json()["next"]

        def timed(path: str, params: dict[str, str], expect: str) -> tuple[float, float]:
            async def call() -> object:
                answer = client.get(path, params=params)
                assert answer.status_code == 200 and expect in answer.text
                return answer

            return asyncio.run(timings(call, rounds))

        last = {"after": last_after} if last_after else {}
        return {
            f"GET /approvals, first page, {label}": timed("/approvals", {}, "waiting"),
            f"GET /approvals, last page, {label}": timed("/approvals", last, "waiting"),
            f"GET /api/approvals, first, {label}": timed("/api/approvals", {}, "total"),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--page-size", type=int, default=50)
    arguments = parser.parse_args()
    stop_cleanly_on_sigterm()
    home = Path(tempfile.mkdtemp(prefix="signoff-bench-live-"))
    print(f"Starting a private stack in {home}; then {arguments.runs} runs.", flush=True)  # noqa: T201
    with signoff_dev_stack(home, task_queue=f"bench-{uuid.uuid4().hex[:8]}") as (env, _):
        settings = Settings(
            home=home,
            temporal_address=env["SIGNOFF_TEMPORAL_ADDRESS"],
            task_queue=env["SIGNOFF_TASK_QUEUE"],
            page_size=arguments.page_size,
        )
        began = time.monotonic()
        asyncio.run(start_runs(settings, arguments.runs))
        print(f"{arguments.runs} runs wait, after {time.monotonic() - began:.0f} s.")  # noqa: T201
        results = asyncio.run(listings(settings, arguments.runs, arguments.rounds))
        checks = asyncio.run(paged_checks(settings, arguments.runs))
        results.update(page_timings(settings, arguments.rounds, "read model"))
    for line in checks:
        print(line)  # noqa: T201
    for label, (p50, p95) in results.items():
        print(f"{label:40} {arguments.runs:>5} waiting: p50 {p50:8.1f} ms  p95 {p95:8.1f} ms")  # noqa: T201
    memo = results["memo listing (the inbox's)"][0]
    query = results["one query per run (before)"][0]
    print(f"p50 ratio, query per run / memo listing: {query / memo:.1f}x")  # noqa: T201


if __name__ == "__main__":
    main()
