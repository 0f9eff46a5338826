"""The inbox listing against real waiting runs: memo listing against one query per run.

A private `signoff dev` stack (Temporal dev server, worker, SQLite) gets N runs on the
demo refund ticket; each proposes a refund and waits for a decision. Then, p50/p95 of:
the listing the inbox uses (one visibility call, pending actions read from each run's
memo), the listing it replaced (the same visibility call, then the `state` query of
every waiting run), and the whole `GET /approvals` page through FastAPI's TestClient,
without the listing cache (every page lists) and with it (the default: one listing per
tenant per 2 s, so most polls reuse one).

    .venv/bin/python bench/inbox_live.py [--runs 1000] [--rounds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from approvals_ui.main import create_app  # noqa: E402
from signoff.config.settings import Settings  # noqa: E402
from signoff.config.temporal_client import connect  # noqa: E402
from signoff.service.pending import list_pending, waiting_query  # noqa: E402
from signoff.service.runs import start_run  # noqa: E402
from signoff.wiring.local_stack import signoff_dev_stack  # noqa: E402
from workflows.contracts import ModelRef, RunRequest  # noqa: E402

TENANT = "demo"
STARTS_AT_ONCE = 50


def request(settings: Settings) -> RunRequest:
    return RunRequest(
        tenant_id=TENANT,
        actor_id="bench",
        request_id=uuid.uuid4().hex[:12],
        trace_id=uuid.uuid4().hex,
        goal="Answer the customer's support ticket.",
        ticket_id="T-1042",
        policy_version=settings.policy_version,
        model=ModelRef(provider="scripted", model_id="demo"),
        deadline=datetime.now(UTC) + timedelta(hours=48),
    )


async def start_runs(settings: Settings, count: int) -> None:
    client = await connect(settings)
    started = 0
    while started < count:
        batch = min(STARTS_AT_ONCE, count - started)
        await asyncio.gather(
            *(start_run(client, request(settings), settings.task_queue) for _ in range(batch))
        )
        started += batch
    began = time.monotonic()
    while (listed := await client.count_workflows(waiting_query(TENANT))).count < count:
        print(f"  {listed.count}/{count} runs wait for a decision", flush=True)  # noqa: T201
        if time.monotonic() - began > 30 * 60:
            raise SystemExit("the runs did not all reach their approval within 30 minutes")
        await asyncio.sleep(2)


async def timings(call: Callable[[], Awaitable[object]], rounds: int) -> tuple[float, float]:
    await call()  # warm up
    samples = []
    for _ in range(rounds):
        began = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - began) * 1000)
    cuts = statistics.quantiles(samples, n=100)
    return cuts[49], cuts[94]


async def listings(settings: Settings, count: int, rounds: int) -> dict[str, tuple[float, float]]:
    client = await connect(settings)
    run_ids = [item.run_id for item in await list_pending(client, TENANT)]
    assert len(run_ids) >= count, f"{len(run_ids)} pending actions listed, {count} expected"

    async def by_memo() -> object:
        return await list_pending(client, TENANT)

    async def by_query() -> object:
        return await list_pending(client, TENANT, trust_memo=False)

    return {
        "memo listing (the inbox's)": await timings(by_memo, rounds),
        "one query per run (before)": await timings(by_query, rounds),
    }


def page_timing(settings: Settings, rounds: int) -> tuple[float, float]:
    with TestClient(create_app(settings)) as client:
        token = client.get("/signin").text.split('name="csrf_token" value="')[1].split('"')[0]
        client.post(
            "/signin",
            data={"csrf_token": token, "username": "alice", "password": "demo-alice"},
            follow_redirects=False,
        )

        async def page() -> object:
            answer = client.get("/approvals")
            assert answer.status_code == 200 and "requests are waiting" in answer.text
            return answer

        return asyncio.run(timings(page, rounds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=30)
    arguments = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="signoff-bench-live-"))
    print(f"Starting a private stack in {home}; then {arguments.runs} runs.", flush=True)  # noqa: T201
    with signoff_dev_stack(home, task_queue=f"bench-{uuid.uuid4().hex[:8]}") as (env, _):
        settings = Settings(
            home=home,
            temporal_address=env["SIGNOFF_TEMPORAL_ADDRESS"],
            task_queue=env["SIGNOFF_TASK_QUEUE"],
        )
        began = time.monotonic()
        asyncio.run(start_runs(settings, arguments.runs))
        print(f"{arguments.runs} runs wait, after {time.monotonic() - began:.0f} s.")  # noqa: T201
        results = asyncio.run(listings(settings, arguments.runs, arguments.rounds))
        uncached = settings.model_copy(update={"ui_inbox_cache_seconds": 0})
        results["GET /approvals, no cache"] = page_timing(uncached, arguments.rounds)
        results["GET /approvals, 2 s cache"] = page_timing(settings, arguments.rounds)
    for label, (p50, p95) in results.items():
        print(f"{label:32} {arguments.runs:>5} waiting: p50 {p50:8.1f} ms  p95 {p95:8.1f} ms")  # noqa: T201
    memo = results["memo listing (the inbox's)"][0]
    query = results["one query per run (before)"][0]
    print(f"p50 ratio, query per run / memo listing: {query / memo:.1f}x")  # noqa: T201


if __name__ == "__main__":
    main()
