"""The model-turn activity's read of a run's prompt catalog (workflows/prompt_catalog.py).

A catalog never changes once written (its key is its hash), so a worker keeps the few
it has read: a run's every turn, and every run of the same agent, read it once per
process. What is kept was checked against its digest when read; a catalog the store
does not hold, or holds changed, fails the turn non-retryably with the store's words,
since retrying reads the same row.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from sqlalchemy import Engine
from temporalio.exceptions import ApplicationError

from activities.store.prompt_catalogs import CatalogMissing, CatalogTampered, read_catalog
from workflows.contracts import ModelRequest
from workflows.prompt_catalog import PromptCatalog

# Catalogs kept per process: one per agent and tool list in use, a few KB each.
CACHED_CATALOGS = 64


class PromptCatalogs:
    def __init__(self, engine: Engine, cached: int = CACHED_CATALOGS) -> None:
        self._engine = engine
        self._cached = cached
        self._catalogs: OrderedDict[str, PromptCatalog] = OrderedDict()

    async def catalog(self, digest: str) -> PromptCatalog:
        found = self._catalogs.get(digest)
        if found is None:
            try:
                found = await asyncio.to_thread(read_catalog, self._engine, digest)
            except (CatalogMissing, CatalogTampered) as error:
                # The same row answers every retry the same way.
                raise ApplicationError(
                    str(error), type=type(error).__name__, non_retryable=True
                ) from None
            self._catalogs[digest] = found
            if len(self._catalogs) > self._cached:
                self._catalogs.popitem(last=False)
        else:
            self._catalogs.move_to_end(digest)
        return found

    async def resolved(self, request: ModelRequest) -> ModelRequest:
        """`request` with its catalog's system prompt and tools in place (the catalog's
        tools first, then those the run added); as it is when it names no catalog."""
        digest = request.prompt_digest
        if digest is None:
            return request
        catalog = await self.catalog(digest)
        return request.model_copy(
            update={"system": catalog.system, "tools": [*catalog.tools, *request.tools]}
        )
