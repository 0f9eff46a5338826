"""The pending listing at one checkpoint of `python -m bench.scale`, through every face.

The service call in-process (signoff/service/waiting_listing.py, what every face calls),
`signoff pending --json` as a new process (with its start-up: what a person waits for),
and `GET /approvals` and `GET /api/approvals` through FastAPI's TestClient with a
signed-in reviewer; each the first page and the last (reached by following `next`).
All read the store's read model; no listing cache is in the way.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from approvals_ui.main import create_app
from bench.common.timings import p50_p95
from bench.scale.waiting_runs import TENANT, sign_in, timings
from signoff.config.settings import Settings
from signoff.service.handles import Store
from signoff.service.waiting_listing import read_pending_page

SIGNOFF = str(Path(sys.executable).parent / "signoff")


@dataclass
class Walk:
    """The listing followed page by page, as a person paging through it would."""

    total: int  # the count the first page reports
    waiting_runs: int
    listed: int  # requests seen over every page
    distinct: int
    pages: int
    in_expiry_order: bool
    last_after: str | None  # the cursor of the last page (None: one page only)


def walk(engine: Engine, page_size: int) -> Walk:
    first = read_pending_page(Store(engine), TENANT, page_size)
    seen, after, pages, last_after = [], None, 0, None
    while True:
        page = read_pending_page(Store(engine), TENANT, page_size, after).page
        seen += [(item.action.expires_at, item.action.action_hash) for item in page.items]
        pages += 1
        if page.next is None:
            last_after = after
            break
        after = page.next
    return Walk(
        total=first.page.total,
        waiting_runs=first.waiting_runs,
        listed=len(seen),
        distinct=len(set(seen)),
        pages=pages,
        in_expiry_order=seen == sorted(seen),
        last_after=last_after,
    )


@dataclass
class FaceTimings:
    p50_p95: dict[str, tuple[float, float]] = field(default_factory=dict)  # ms
    cli_first_page: dict[str, object] = field(default_factory=dict)  # what the CLI printed


def service_timings(
    engine: Engine, page_size: int, last: str | None, rounds: int
) -> dict[str, tuple[float, float]]:
    async def first() -> object:
        return await asyncio.to_thread(read_pending_page, Store(engine), TENANT, page_size)

    async def last_page() -> object:
        return await asyncio.to_thread(read_pending_page, Store(engine), TENANT, page_size, last)

    return {
        "service, first page": asyncio.run(timings(first, rounds)),
        "service, last page": asyncio.run(timings(last_page, rounds)),
    }


def wall(command: list[str], env: dict[str, str], rounds: int) -> tuple[float, float]:
    """p50/p95 ms of `command` as a new process, each round."""
    samples = []
    for _ in range(rounds):
        began = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        samples.append((time.perf_counter() - began) * 1000)
    return p50_p95(samples)


def cli_wall(
    env: dict[str, str], after: str | None, rounds: int
) -> tuple[float, float, dict[str, Any]]:
    """`signoff pending --json` (its default page size), p50/p95 ms, and one answer."""
    command = [SIGNOFF, "pending", "--tenant", TENANT, "--json"]
    if after:
        command += ["--after", after]
    answer = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    p50, p95 = wall(command, env, rounds)
    return p50, p95, json.loads(answer.stdout)


def http_timings(
    settings: Settings, last: str | None, rounds: int
) -> dict[str, tuple[float, float]]:
    with TestClient(create_app(settings)) as client:
        sign_in(client)

        def timed(path: str, params: dict[str, str], expect: str) -> tuple[float, float]:
            async def call() -> object:
                answer = client.get(path, params=params)
                assert answer.status_code == 200 and expect in answer.text, answer.status_code
                return answer

            return asyncio.run(timings(call, rounds))

        after = {"after": last} if last else {}
        return {
            "GET /approvals, first page": timed("/approvals", {}, "waiting"),
            "GET /approvals, last page": timed("/approvals", after, "waiting"),
            "GET /api/approvals, first page": timed("/api/approvals", {}, "total"),
            "GET /api/approvals, last page": timed("/api/approvals", after, "total"),
        }


def face_timings(
    settings: Settings,
    engine: Engine,
    env: dict[str, str],
    last: str | None,
    rounds: int,
    cli_rounds: int,
) -> FaceTimings:
    found = FaceTimings()
    found.p50_p95.update(service_timings(engine, settings.page_size, last, rounds))
    p50, p95, answer = cli_wall(env, None, cli_rounds)
    found.p50_p95["signoff pending --json, first page"] = (p50, p95)
    found.cli_first_page = {
        "total": answer["total"],
        "waiting_runs": answer["waiting_runs"],
        "items": len(answer["items"]),
    }
    p50, p95, _ = cli_wall(env, last, cli_rounds)
    found.p50_p95["signoff pending --json, last page"] = (p50, p95)
    # For scale: a new process's start-up alone, with no store and no Temporal.
    found.p50_p95["signoff --help (start-up alone)"] = wall([SIGNOFF, "--help"], env, cli_rounds)
    found.p50_p95.update(http_timings(settings, last, rounds))
    return found
