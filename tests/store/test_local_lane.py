"""A decision is checked while the worker's other activities hold every thread and every
connection they share (activities/local_lane.py): refunds waiting on a lock no longer
leave `verify_decision` without either, so it answers inside its workflow task.

On a real SQLite store; the worker's other activities are stood for by blocked threads
on asyncio's default executor and by connections checked out of the worker's pool."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, asynccontextmanager
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from activities.decision_verifier import DecisionVerifier
from activities.local_lane import in_thread, local_lane
from tests.store.proofs import in_its_workflow_task
from tests.workflow.approvals import TEST_KEYS, decision, signed
from workflows.decision_check import DecisionCheck

RUN = "run-demo-lane"
HASH = "ef" * 32
MAX_AGE = timedelta(minutes=5)
# Far inside `verify_decision`'s 2 s attempt: the check needs no more.
ANSWERS_WITHIN = 1.5
# The threads of asyncio's default executor (ThreadPoolExecutor's default), all held.
SHARED_THREADS = min(32, (os.cpu_count() or 1) + 4)


def check(engine: Engine, update_id: str) -> DecisionCheck:
    now = datetime.now(UTC)
    return DecisionCheck(
        run_id=RUN,
        run_tenant_id="demo",
        run_actor_id="ops",
        update_id=update_id,
        decision=signed(decision(engine, "alice", HASH), RUN, at=now),
        now=now + timedelta(seconds=1),
    )


@asynccontextmanager
async def shared_threads_held() -> AsyncIterator[None]:
    """asyncio's default executor, every thread of it blocked until the block ends (as
    refunds waiting on their order's lock hold theirs). The tests share one event loop,
    and another may have sized its default executor (as `signoff worker` does): this
    block gives it one of asyncio's own size first, so that its threads are all held."""
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(SHARED_THREADS))
    release = threading.Event()
    holders = [asyncio.to_thread(release.wait) for _ in range(SHARED_THREADS)]
    waiting = asyncio.gather(*holders)
    try:
        yield
    finally:
        release.set()
        await waiting
        loop.set_default_executor(ThreadPoolExecutor())


async def test_the_check_answers_while_the_shared_threads_are_all_held(
    seeded_engine: Engine,
) -> None:
    lane = local_lane(seeded_engine)
    laned = DecisionVerifier(lane.engine, TEST_KEYS, MAX_AGE, threads=lane.threads)
    shared = DecisionVerifier(seeded_engine, TEST_KEYS, MAX_AGE)
    environment = in_its_workflow_task(RUN)

    async with shared_threads_held():
        proof = await asyncio.wait_for(
            environment.run(laned.verify_decision, check(seeded_engine, "update-laned")),
            ANSWERS_WITHIN,
        )
        assert proof.accepted
        # The same check on the shared threads waits behind them: what the lane is for.
        waiting = asyncio.ensure_future(
            environment.run(shared.verify_decision, check(seeded_engine, "update-shared"))
        )
        done, _ = await asyncio.wait([waiting], timeout=ANSWERS_WITHIN)
        assert not done
    assert (await waiting).accepted  # once the threads are free again


async def test_the_check_answers_while_the_workers_pool_is_all_checked_out(
    seeded_engine: Engine,
) -> None:
    lane = local_lane(seeded_engine)
    laned = DecisionVerifier(lane.engine, TEST_KEYS, MAX_AGE, threads=lane.threads)
    pool = seeded_engine.pool
    sent = check(seeded_engine, "update-pool")  # read before the pool is taken
    with ExitStack() as held:
        # Every connection the worker's pool may open, checked out and kept.
        for _ in range(pool.size() + pool._max_overflow):  # type: ignore[attr-defined]
            held.enter_context(seeded_engine.connect())
        assert pool.checkedout() == pool.size() + pool._max_overflow  # type: ignore[attr-defined]

        proof = await asyncio.wait_for(
            in_its_workflow_task(RUN).run(laned.verify_decision, sent),
            ANSWERS_WITHIN,
        )
    assert proof.accepted


def test_one_lane_per_engine_with_a_pool_of_its_own(seeded_engine: Engine) -> None:
    lane = local_lane(seeded_engine)
    assert local_lane(seeded_engine) is lane
    assert lane.engine is not seeded_engine
    assert lane.engine.pool is not seeded_engine.pool
    assert lane.engine.url == seeded_engine.url


async def test_a_call_on_the_lane_keeps_its_callers_context() -> None:
    """The activity's context (its info, its trace) goes with the call, as
    `asyncio.to_thread` takes it."""
    import contextvars

    marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker")
    marker.set("the caller's")
    with ThreadPoolExecutor(1) as threads:
        assert await in_thread(threads, marker.get) == "the caller's"
