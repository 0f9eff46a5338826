"""The inbox listing cache: one listing per tenant per `ttl` seconds, however many ask."""

from __future__ import annotations

import asyncio

import pytest

from approvals_ui.inbox_cache import InboxCache


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Listing:
    """Counts the loads; each returns a new list naming its number."""

    def __init__(self) -> None:
        self.loads = 0
        self.release = asyncio.Event()
        self.release.set()

    async def __call__(self) -> list[str]:
        self.loads += 1
        number = self.loads
        await self.release.wait()
        return [f"load {number}"]


async def test_a_listing_serves_until_it_is_ttl_old() -> None:
    clock, listing = Clock(), Listing()
    cache: InboxCache[list[str]] = InboxCache(2.0, clock)
    assert await cache.rows("demo", listing) == ["load 1"]
    clock.now += 1.9
    assert await cache.rows("demo", listing) == ["load 1"]
    clock.now += 0.1
    assert await cache.rows("demo", listing) == ["load 2"]
    assert listing.loads == 2


async def test_tenants_are_apart_and_a_decision_forgets_its_tenant() -> None:
    clock, demo, globex = Clock(), Listing(), Listing()
    cache: InboxCache[list[str]] = InboxCache(2.0, clock)
    await cache.rows("demo", demo)
    await cache.rows("globex", globex)
    cache.forget("demo")
    assert await cache.rows("demo", demo) == ["load 2"]
    assert await cache.rows("globex", globex) == ["load 1"]


async def test_concurrent_inboxes_share_one_load() -> None:
    listing = Listing()
    listing.release.clear()
    cache: InboxCache[list[str]] = InboxCache(2.0, Clock())
    waiting = [asyncio.create_task(cache.rows("demo", listing)) for _ in range(5)]
    await asyncio.sleep(0)
    listing.release.set()
    assert await asyncio.gather(*waiting) == [["load 1"]] * 5
    assert listing.loads == 1


async def test_callers_who_waited_for_a_slow_load_take_it() -> None:
    """A load longer than the ttl (thousands of runs) is not repeated once per waiter."""
    clock, listing = Clock(), Listing()
    listing.release.clear()

    async def slow() -> list[str]:
        rows = await listing()
        clock.now += 3.0  # longer than the ttl
        return rows

    cache: InboxCache[list[str]] = InboxCache(2.0, clock)
    waiting = [asyncio.create_task(cache.rows("demo", slow)) for _ in range(5)]
    await asyncio.sleep(0)
    listing.release.set()
    assert await asyncio.gather(*waiting) == [["load 1"]] * 5
    assert listing.loads == 1
    # A caller who asks after that load ended gets a fresh one: it is 3 s old.
    assert await cache.rows("demo", slow) == ["load 2"]


async def test_a_failed_load_is_not_kept() -> None:
    cache: InboxCache[list[str]] = InboxCache(2.0, Clock())

    async def down() -> list[str]:
        raise ConnectionError("Temporal did not answer")

    with pytest.raises(ConnectionError):
        await cache.rows("demo", down)
    listing = Listing()
    assert await cache.rows("demo", listing) == ["load 1"]


async def test_zero_seconds_turns_it_off() -> None:
    listing = Listing()
    cache: InboxCache[list[str]] = InboxCache(0, Clock())
    await cache.rows("demo", listing)
    await cache.rows("demo", listing)
    assert listing.loads == 2
