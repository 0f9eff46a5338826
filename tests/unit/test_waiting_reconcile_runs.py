"""Which runs with a compact history the read model's reconcile must query: only those
whose rows do not hold exactly the hashes the run publishes; and the listing taken a
page at a time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from signoff.service.waiting_reconcile import pages, runs_to_query


def test_runs_whose_rows_match_their_hashes_are_kept_without_a_query() -> None:
    indexed = {
        "run-same": {"a", "b"},
        "run-missing-row": {"c"},
        "run-stale-row": {"d"},
        "run-one-row-short": {"e", "f"},
    }
    stored = {
        "run-same": {"b", "a"},
        "run-stale-row": {"old"},
        "run-one-row-short": {"e"},
        "run-not-waiting": {"g"},  # not indexed: the rows' own rule removes it
    }
    kept, to_query = runs_to_query(indexed, stored)
    assert kept == {"run-same"}
    assert to_query == {"run-missing-row", "run-stale-row", "run-one-row-short"}


def test_the_listing_is_taken_in_pages_of_the_size_asked_the_last_one_shorter() -> None:
    async def listing() -> AsyncIterator[int]:
        for number in range(5):
            yield number

    async def taken() -> list[list[int]]:
        return [page async for page in pages(listing(), 2)]

    assert asyncio.run(taken()) == [[0, 1], [2, 3], [4]]
