"""The tenant's inbox listing, shared for a moment by every page and poll that needs it.

Listing the waiting runs is one visibility call, but one that grows with the number of
waiting runs (about a second for 1,000 on the dev server's SQLite). Every signed-in
reviewer's inbox polls it every few seconds; through this cache a tenant costs at most
one listing per `ttl` seconds, however many reviewers watch. A decision sent through
this app forgets its tenant's listing, so the reviewer who decided never sees the
action linger; others see it go within `ttl` seconds, as visibility allows anyway.

A listing of thousands of waiting runs may take longer than `ttl` (issue 15: every run
is listed, so that none is hidden). Callers that waited while it loaded take its result
rather than each starting another load in turn behind the lock.
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
        self._entries: dict[str, tuple[float, float, Rows]] = {}  # began, finished, rows
        self._locks: dict[str, asyncio.Lock] = {}

    async def rows(self, tenant_id: str, load: Callable[[], Awaitable[Rows]]) -> Rows:
        """The tenant's listing, loaded by `load` when none is fresh enough.

        Concurrent callers of one tenant wait for the same load rather than each
        starting their own. A load that fails caches nothing.
        """
        if self._ttl <= 0:
            return await load()
        asked = self._clock()
        lock = self._locks.setdefault(tenant_id, asyncio.Lock())
        async with lock:
            entry = self._entries.get(tenant_id)
            if entry is not None:
                began, finished, rows = entry
                if self._clock() - began < self._ttl or finished > asked:
                    return rows
            began = self._clock()
            rows = await load()
            self._entries[tenant_id] = (began, self._clock(), rows)
            return rows

    def forget(self, tenant_id: str) -> None:
        self._entries.pop(tenant_id, None)
