"""A team's tools that hang cannot starve the store's calls in a worker: with more of
them stuck than asyncio's own default executor has threads, a read of the store still
answers at once, on the executor `signoff worker` installs (a thread for each activity
slot, signoff/wiring/worker_capacity.py), and the stuck calls answer once their tool
does.

On a real SQLite store, through the tool gateway's activity, with the team's
`lookup_stock` (tests/tools/team_tools.py) made to wait as a warehouse that does not
answer would."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import Engine
from temporalio.testing import ActivityEnvironment

from activities.held_profiles import HeldProfiles
from activities.tool_gateway import ToolGateway
from signoff.config.profiles import load_profile_file
from signoff.config.settings import Settings
from signoff.wiring.worker_capacity import activity_threads
from tests.tools import team_tools
from workflows.contracts import ToolCallInput, ToolResult

# asyncio's default executor's threads (ThreadPoolExecutor's default): more tools than
# that are stuck at once.
SHARED_THREADS = min(32, (os.cpu_count() or 1) + 4)
STUCK = SHARED_THREADS + 2
# Far more than a read of the ticket needs; far less than a test's patience.
ANSWERS_WITHIN = 5.0


TEAM = load_profile_file(Path(__file__).parents[1] / "tools" / "team_profile.toml")


def call(name: str, arguments: dict[str, object], call_id: str) -> ToolCallInput:
    return ToolCallInput(
        run_id="run-demo-threads",
        tenant_id="demo",
        ticket_id="T-4512",
        tool_use_id=call_id,
        name=name,
        arguments=arguments,
        idempotency_key=f"run-demo-threads:{name}:{call_id}",
        profile_hash=TEAM.content_hash,
        agent_name=TEAM.profiles.default_agent,
    )


@pytest.fixture
def warehouse_stuck() -> Iterator[threading.Event]:
    """Every `lookup_stock` call waits until the event is set (set at the end anyway)."""
    gate = threading.Event()
    team_tools.STOCK_WAITING.clear()
    team_tools.STOCK_GATE = gate
    yield gate
    gate.set()
    team_tools.STOCK_GATE = None
    team_tools.STOCK_WAITING.clear()


@pytest.fixture
async def workers_threads() -> AsyncIterator[None]:
    """This loop's default executor as `signoff worker` sets it (50 activity slots), then
    asyncio's own again."""
    loop = asyncio.get_running_loop()
    loop.set_default_executor(activity_threads(Settings(worker_max_concurrent_activities=50)))
    yield
    loop.set_default_executor(ThreadPoolExecutor())


async def until_waiting(count: int) -> None:
    deadline = time.monotonic() + ANSWERS_WITHIN
    while len(team_tools.STOCK_WAITING) < count:
        assert time.monotonic() < deadline, f"{len(team_tools.STOCK_WAITING)} calls started"
        await asyncio.sleep(0.01)


async def test_tools_that_hang_leave_the_store_s_threads_to_the_store(
    seeded_engine: Engine, warehouse_stuck: threading.Event, workers_threads: None
) -> None:
    gateway = ToolGateway(seeded_engine, profiles=HeldProfiles.of([TEAM]))
    environment = ActivityEnvironment()
    stuck = [
        asyncio.create_task(
            environment.run(gateway.run_tool, call("lookup_stock", {"sku": f"K-{n}"}, f"s{n}"))
        )
        for n in range(STUCK)
    ]
    # Every thread asyncio's own executor has could now be a stuck tool's.
    await until_waiting(SHARED_THREADS)
    ticket: ToolResult = await asyncio.wait_for(
        environment.run(gateway.run_tool, call("read_ticket", {}, "read")), ANSWERS_WITHIN
    )
    assert not ticket.is_error and "Where is my order 4512?" in ticket.content
    await until_waiting(STUCK)  # and none of them waited for a thread
    warehouse_stuck.set()
    answers = await asyncio.gather(*stuck)
    assert [answer.is_error for answer in answers] == [False] * STUCK
    assert sorted(team_tools.STOCK_WAITING) == sorted(f"K-{n}" for n in range(STUCK))
