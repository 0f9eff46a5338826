"""A team's Python tools run on threads of their own, never on those of the store's calls.

Design note. A registered tool that is a plain function (tests/tools/team_tools.py) is
called in a thread, so that it cannot block the worker's event loop. On asyncio's
default executor it shared its threads (6 on 2 cores) with every store call of the
worker's activities: the refund's transaction, the action's state, the effect's claim
of its key. A team's tool may block for as long as its `call_timeout` allows (up to an
hour), and a call Temporal gave up on keeps its thread until the function returns (a
thread cannot be stopped). Six slow lookups then left the refunds without a thread:
each waited out its 10 s attempt and was retried, and every read of the store waited
behind the tools. So the tools have a pool of their own, as many threads as the worker
runs activities at once (`SIGNOFF_WORKER_MAX_CONCURRENT_ACTIVITIES`), started only as
calls need them: a slow or hung tool holds one of its own, and the store's calls never
wait behind it. A tool that is a coroutine function runs on the event loop, as before,
and must not block it. The local activities have their own lane too
(`activities/local_lane.py`).
"""

from __future__ import annotations

import functools
import inspect
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

from activities.local_lane import in_thread
from signoff.tools import ToolContext

# As SIGNOFF_WORKER_MAX_CONCURRENT_ACTIVITIES's default: every activity slot may be a
# tool's call.
DEFAULT_TOOL_THREADS = 50


@functools.cache
def tool_threads(size: int = DEFAULT_TOOL_THREADS) -> Executor:
    """The process's pool for team tools of `size` threads (one per size)."""
    return ThreadPoolExecutor(size, thread_name_prefix="signoff-tool")


async def call_tool_function(
    function: Any, arguments: Any, context: ToolContext, threads: Executor | None = None
) -> Any:
    """`function(arguments, context)`: awaited when it is a coroutine function, else
    in a thread of `threads` (the tools' own pool when None), the activity's context
    going with it."""
    if inspect.iscoroutinefunction(function):
        return await function(arguments, context)
    return await in_thread(threads or tool_threads(), function, arguments, context)
