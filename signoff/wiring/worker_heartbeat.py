"""A file the worker touches while it runs, so that a container can tell it is alive.

A worker serves no port of its own, so the health check of `temporal-dev.yml` asks
whether this file changed lately. It is touched from the worker's event loop: a loop
that hangs stops touching it, and the container turns unhealthy. The file goes away
when the worker stops.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

HEARTBEAT_SECONDS = 10.0


async def _touch_forever(path: Path) -> None:
    while True:
        path.touch()
        await asyncio.sleep(HEARTBEAT_SECONDS)


@contextlib.asynccontextmanager
async def heartbeat(path: Path | None) -> AsyncIterator[None]:
    """Touch `path` every HEARTBEAT_SECONDS until the block ends; nothing when None."""
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    task = asyncio.create_task(_touch_forever(path))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        path.unlink(missing_ok=True)
