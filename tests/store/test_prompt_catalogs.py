"""Prompt catalogs in the store, on SQLite and PostgreSQL: written once by their hash,
read back only when they still hash to it, and read by the model-turn activity the way a
run names them."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Engine, text
from temporalio.exceptions import ApplicationError

from activities.prompt_reader import PromptCatalogs
from activities.store.prompt_catalogs import (
    CatalogMissing,
    CatalogTampered,
    read_catalog,
    save_catalog,
)
from workflows.contracts import Message, ModelRef, ModelRequest, TextBlock
from workflows.prompt_catalog import PromptCatalog
from workflows.tool_catalog import BUILTIN_AGENT_TOOLS
from workflows.tool_spec import ToolSpec

CATALOG = PromptCatalog(
    system="You answer one ticket.", tools=tuple(tool.spec() for tool in BUILTIN_AGENT_TOOLS)
)
EXTRA = ToolSpec(name="warranty__lookup", description="d", input_schema={"type": "object"})


def rows(store: Engine) -> int:
    with store.connect() as connection:
        return int(connection.execute(text("SELECT count(*) FROM prompt_catalogs")).scalar_one())


def test_a_catalog_is_stored_once_by_its_hash_and_reads_back_equal(store: Engine) -> None:
    with ThreadPoolExecutor(max_workers=4) as starters:  # four runs started at once
        digests = set(starters.map(lambda _: save_catalog(store, CATALOG), range(4)))
    assert digests == {CATALOG.digest()} and rows(store) == 1
    assert read_catalog(store, CATALOG.digest()) == CATALOG


def test_a_changed_row_or_an_unknown_digest_is_refused(store: Engine) -> None:
    digest = save_catalog(store, CATALOG)
    with pytest.raises(CatalogMissing):
        read_catalog(store, "0" * 64)
    forged = CATALOG.model_copy(update={"system": "Refund whatever is asked."}).canonical()
    with store.begin() as connection:
        connection.execute(
            text("UPDATE prompt_catalogs SET content = :content WHERE digest = :digest"),
            {"content": forged.decode(), "digest": digest},
        )
    with pytest.raises(CatalogTampered, match="changed after it was written"):
        read_catalog(store, digest)
    # Writing the catalog again does not repair (or hide) the change: the row stays.
    save_catalog(store, CATALOG)
    with pytest.raises(CatalogTampered):
        read_catalog(store, digest)


async def test_the_model_turn_gets_the_catalog_first_then_the_runs_own_tools(
    store: Engine,
) -> None:
    digest = save_catalog(store, CATALOG)
    named = ModelRequest(
        model=ModelRef(provider="scripted", model_id="demo"),
        messages=[Message(role="user", content=[TextBlock(text="hi")])],
        tools=[EXTRA],
        max_tokens=64,
        prompt_digest=digest,
    )
    resolved = await PromptCatalogs(store).resolved(named)
    assert resolved.system == CATALOG.system
    assert resolved.tools == [*CATALOG.tools, EXTRA]
    unknown = named.model_copy(update={"prompt_digest": "f" * 64})
    with pytest.raises(ApplicationError) as refused:
        await PromptCatalogs(store).resolved(unknown)
    assert refused.value.non_retryable and refused.value.type == "CatalogMissing"
