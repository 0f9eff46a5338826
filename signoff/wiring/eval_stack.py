"""The stack `signoff eval` runs on: a private `signoff dev`, or an existing one.

Private (the default): `signoff dev` on free ports and a temporary home, its scripts
directory holding the scenarios' scripts; stopped with Ctrl-C at the end. Existing
(`SIGNOFF_TEMPORAL_ADDRESS` set): its worker and store, as the settings name them.

Either way this process also runs one more worker, on its own task queue, whose store
cannot be reached: the real worker code, with a SQLite file whose folder was removed
after the tables were made. Scenarios with the `connector_down` fault run there.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from activities.store import make_engine
from signoff.config.decision_key import load_decision_key
from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.service.evals.runner import AttemptResult, EvalStack, run_scenarios
from signoff.service.evals.scenario import LoadedScenario
from signoff.service.evals.scripts import scenario_scripts
from signoff.wiring.local_stack import signoff_dev_stack
from signoff.wiring.worker import build_worker

EXISTING_STACK_VARIABLE = "SIGNOFF_TEMPORAL_ADDRESS"
CONNECTOR_DOWN_SUFFIX = "-connector-down"


def uses_existing_stack() -> bool:
    return bool(os.environ.get(EXISTING_STACK_VARIABLE))


@contextmanager
def private_stack(scripts: dict[str, Path]) -> Iterator[Settings]:
    home = Path(tempfile.mkdtemp(prefix="signoff-eval-"))
    scripts_dir = home / "scripts"
    scripts_dir.mkdir()
    for name, path in scripts.items():
        target = scripts_dir / f"{name}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    queue = f"eval-{os.getpid()}"
    try:
        with signoff_dev_stack(home, queue, SIGNOFF_SCRIPTS_DIR=str(scripts_dir)) as (env, _):
            yield Settings(
                home=home,
                temporal_address=env["SIGNOFF_TEMPORAL_ADDRESS"],
                task_queue=queue,
                scripts_dir=scripts_dir,
            )
    finally:
        shutil.rmtree(home, ignore_errors=True)


def unreachable_store_url(home: Path) -> str:
    folder = Path(tempfile.mkdtemp(prefix="signoff-down-", dir=home))
    url = f"sqlite:///{folder / 'gone.db'}"
    make_engine(url).dispose()  # the tables exist; then the file and its folder go
    shutil.rmtree(folder)
    return url


@asynccontextmanager
async def connector_down_worker(settings: Settings) -> AsyncIterator[str]:
    settings = settings.model_copy(
        update={
            "task_queue": settings.task_queue + CONNECTOR_DOWN_SUFFIX,
            "database_url": unreachable_store_url(settings.home),
        }
    )
    client = await connect(settings)
    worker = build_worker(client, settings)
    async with worker:
        yield settings.task_queue


async def run_on(
    settings: Settings,
    scenarios: list[LoadedScenario],
    repeat: int,
    progress: Callable[[AttemptResult], None] | None,
) -> list[AttemptResult]:
    client = await connect(settings)
    engine = make_engine(settings.resolved_database_url)
    try:
        async with connector_down_worker(settings) as down_queue:
            stack = EvalStack(client, settings, engine, load_decision_key(settings), down_queue)
            return await run_scenarios(stack, scenarios, repeat, progress)
    finally:
        engine.dispose()


def run_evals(
    scenarios: list[LoadedScenario],
    repeat: int,
    progress: Callable[[AttemptResult], None] | None = None,
) -> list[AttemptResult]:
    """Run on the stack the environment names, or on a private one. Raises
    ScenarioError (bad input) before anything starts."""
    if uses_existing_stack():
        return asyncio.run(run_on(Settings(), scenarios, repeat, progress))
    scripts = scenario_scripts(scenarios)
    with private_stack(scripts) as settings:
        return asyncio.run(run_on(settings, scenarios, repeat, progress))
