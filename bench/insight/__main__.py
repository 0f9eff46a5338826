"""How fast the approval insight answers with 1,000,000 audit rows (target: p95 at most
300 ms for the page's default period).

What is measured, for the default period (the last 30 days) and for the longest a page
takes (366 days: every row): the first view of a period, its reads alone
(activities/store/approval_insight.py, not kept: `approval_insight`: the period's days
from `insight_days`, its shadow rules' rows from the audit), and the whole `GET /insight`
route through FastAPI's TestClient (a signed-in administrator, the reads, the SVG bars
and tables, the Jinja2 render) twice: at the first view of a period (each timed call
asks for a period ending a day earlier than the last, which the process never read),
and as a lead uses it, the period kept by the process and brought up to date with the
rows appended since (insight_cache.py), with APPENDED_BETWEEN new audit rows written
before each call, as a busy tenant's decisions come in. The rows are a year of one
tenant's synthetic audit (rows.py), bulk-inserted into a temporary SQLite store; the
bulk insert is not the audit's writer, so their days are then rolled up as a view rolls
up a store's days from before revision 0014 (insight_period.roll_up), timed. It writes
bench/results/INSIGHT.md.

    .venv/bin/python -m bench.insight [--rows 1000000] [--rounds 30]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import UTC, datetime, timedelta
from datetime import time as time_of_day
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from activities.store import make_engine, seed_demo, use_session
from activities.store.approval_insight import approval_insight
from activities.store.insight_period import roll_up, whole_days
from activities.store.schema import DecisionRow
from approvals_ui.main import create_app
from bench.common.timings import p50_p95, timings
from bench.insight.report import Measured, write_insight
from bench.insight.rows import append_more, fill
from signoff.config.settings import Settings
from signoff.service.approval_insight import InsightPeriod
from signoff.service.handles import Store

TENANT = "demo"
DAYS_OF_ROWS = 365
PERIODS = {"the last 30 days (the default)": 30, "366 days (the longest)": 366}
LONG_ROUNDS = 5  # the year-long period's first view reads every row: fewer rounds
APPENDED_BETWEEN = 20  # new audit rows before each timed view


def timed_with_appends(call: Any, engine: Any, rounds: int) -> tuple[float, float]:
    """p50 and p95 in ms of `rounds` calls, each after APPENDED_BETWEEN new rows (not
    timed), after one call to warm up (the period's first read)."""
    call()
    samples = []
    for _ in range(rounds):
        append_more(engine, TENANT, APPENDED_BETWEEN)
        began = time.perf_counter()
        call()
        samples.append((time.perf_counter() - began) * 1000)
    return p50_p95(samples)


def wall_and_cpu(call: Any, rounds: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """p50 and p95 in ms of `rounds` calls (after one to warm up), by the wall clock and
    by the CPU time of this process: on a machine shared with other jobs the wall clock
    waits behind them, the CPU time much less (the page and its reads run here, the
    TestClient's app in a thread of this process, SQLite in-process)."""
    call()
    wall, cpu = [], []
    for _ in range(rounds):
        began, used = time.perf_counter(), time.process_time()
        call()
        wall.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    return p50_p95(wall), p50_p95(cpu)


async def no_temporal(_: Settings) -> Any:
    return object()  # never used: the insight reads the store alone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=30)
    arguments = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="signoff-bench-"))
    engine = make_engine(f"sqlite:///{home / 'signoff.db'}")
    seed_demo(engine)
    today = datetime.now(UTC)
    began = time.perf_counter()
    fill(engine, TENANT, arguments.rows, today, DAYS_OF_ROWS)
    fill_seconds = time.perf_counter() - began
    began = time.perf_counter()
    start = datetime.combine(today.date() - timedelta(days=DAYS_OF_ROWS), time_of_day.min, UTC)
    roll_up(engine, [TENANT], whole_days(start, today), today)
    roll_up_seconds = time.perf_counter() - began
    store = Store(engine)
    app = create_app(Settings(home=home), temporal_connect=no_temporal, engine=store)
    measured: list[Measured] = []
    with TestClient(app) as client:
        token = client.get("/signin").text.split('name="csrf_token" value="')[1].split('"')[0]
        client.post(
            "/signin",
            data={"csrf_token": token, "username": "admin", "password": "demo-admin"},
            follow_redirects=False,
        )
        for label, days in PERIODS.items():
            period = InsightPeriod(today.date() - timedelta(days=days - 1), today.date())
            rounds = arguments.rounds if days <= PERIODS[next(iter(PERIODS))] else LONG_ROUNDS
            with use_session(engine) as session:
                in_period = session.scalar(
                    select(func.count()).where(
                        DecisionRow.tenant_id == TENANT, DecisionRow.decided_at >= period.start
                    )
                )
            query = f"/insight?from={period.since.isoformat()}&to={period.until.isoformat()}"

            def page(query: str = query) -> None:
                answer = client.get(query)
                assert answer.status_code == 200 and 'id="insight-tools"' in answer.text

            earlier = iter(range(1, rounds + 2))

            def first_page(days: int = days, earlier: Any = earlier) -> None:
                """A period of as many days, ending a day earlier than the last asked."""
                end = today.date() - timedelta(days=next(earlier))
                shifted = InsightPeriod(end - timedelta(days=days - 1), end)
                page(f"/insight?from={shifted.since.isoformat()}&to={shifted.until.isoformat()}")

            def first_view(period: InsightPeriod = period) -> None:
                approval_insight(engine, TENANT, period.start, period.end)

            reads = timings(first_view, rounds)
            first, first_cpu = wall_and_cpu(first_page, rounds)
            route = timed_with_appends(page, engine, rounds)
            measured.append(
                Measured(label, int(in_period or 0), rounds, reads, first, first_cpu, route)
            )
    print(write_insight(measured, arguments.rows, fill_seconds, roll_up_seconds))  # noqa: T201


if __name__ == "__main__":
    main()
