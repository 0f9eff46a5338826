"""How a team's tool function is called: awaited, or in a thread when it is plain.

A registered tool (tests/tools/team_tools.py) is a coroutine function or a plain one.
A coroutine function runs on the worker's event loop and must not block it; a plain
one runs in a thread of asyncio's default executor, which `signoff worker` sizes to
its activity slots (`signoff/wiring/worker_capacity.py`), so a tool that blocks, or
hangs past its attempt (a thread cannot be stopped), holds its own slot's thread and
never the one a store call of another activity needs.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from signoff.tools import ToolContext


async def call_tool_function(function: Any, arguments: Any, context: ToolContext) -> Any:
    """`function(arguments, context)`: awaited when it is a coroutine function, else in
    a thread, the activity's context going with it."""
    if inspect.iscoroutinefunction(function):
        return await function(arguments, context)
    return await asyncio.to_thread(function, arguments, context)
