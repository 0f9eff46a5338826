"""The local activities' own lane to the store: threads and connections no other
activity takes.

Design note. A local activity runs inside its run's workflow task: `verify_decision`
while a reviewer waits on the `decide` update, the exposure hold and the standing
rules' match while the run starts to wait, each bounded to a few seconds so that the
task ends well inside its timeout (`workflows/decision_check.py`). Ordinary activities
may hold the store for as long as it takes: a refund waiting on its order's lock, a
payment platform that answers slowly. Both ran their store calls on asyncio's default
thread pool (6 threads on 2 cores) and one connection pool, so twenty refunds waiting
on a lock left no thread and no connection for the next decision's check, and every
decision sent meanwhile was refused with "the store did not answer" (`make chaos`'s
store outage showed it). So the local activities run their store calls on a lane of
their own: `LOCAL_THREADS` threads and as many connections, beside the worker's pool.
A store that is down still fails them both; a busy one no longer fails the decisions.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import ParamSpec, TypeVar
from weakref import WeakKeyDictionary

from sqlalchemy import Engine

from activities.store.database import engine_beside

# Local activities run one at a time per workflow task and each a few reads and one
# write: a few threads serve a worker's workflow-task slots.
LOCAL_THREADS = 4

P = ParamSpec("P")
T = TypeVar("T")


async def in_thread(
    threads: Executor | None, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs
) -> T:
    """`asyncio.to_thread` on `threads` (asyncio's default executor when None): the
    caller's context (the activity's, its trace) goes with the call."""
    if threads is None:
        return await asyncio.to_thread(function, *args, **kwargs)
    call = functools.partial(contextvars.copy_context().run, function, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(threads, call)


@dataclass(frozen=True)
class LocalLane:
    """An engine with a pool of its own on the worker's store, and threads of its own."""

    engine: Engine
    threads: Executor


_LANES: WeakKeyDictionary[Engine, LocalLane] = WeakKeyDictionary()


def local_lane(engine: Engine) -> LocalLane:
    """The lane beside `engine` (one per engine, for the process)."""
    lane = _LANES.get(engine)
    if lane is None:
        lane = LocalLane(
            engine_beside(engine, LOCAL_THREADS),
            ThreadPoolExecutor(LOCAL_THREADS, thread_name_prefix="signoff-local"),
        )
        _LANES[engine] = lane
    return lane
