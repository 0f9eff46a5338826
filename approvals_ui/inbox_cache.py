"""The tenant's inbox listing, shared for a moment by every page and poll that needs it.

Listing the waiting runs is one visibility call, but one that grows with the number of
waiting runs (about a second for 1,000 on the dev server's SQLite). Every signed-in
reviewer's inbox polls it every few seconds; through this cache a tenant costs at most
one listing per `ttl` seconds, however many reviewers watch. A decision sent through
this app forgets its tenant's listing, so the reviewer who decided never sees the
action linger; others see it go within `ttl` seconds, as visibility allows anyway.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

Rows = TypeVar("Rows")


class InboxCache(Generic[Rows]):
    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl
        self._clock = clock
        self._entries: dict[str, tuple[float, Rows]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def rows(self, tenant_id: str, load: Callable[[], Awaitable[Rows]]) -> Rows:
        """The tenant's listing, loaded by `load` when none is fresh enough.

        Concurrent callers of one tenant wait for the same load rather than each
        starting their own. A load that fails caches nothing.
        """
        if self._ttl <= 0:
            return await load()
        lock = self._locks.setdefault(tenant_id, asyncio.Lock())
        async with lock:
            entry = self._entries.get(tenant_id)
            if entry is not None and self._clock() - entry[0] < self._ttl:
                return entry[1]
            began = self._clock()
            rows = await load()
            self._entries[tenant_id] = (began, rows)
            return rows

    def forget(self, tenant_id: str) -> None:
        self._entries.pop(tenant_id, None)
