"""The stack `signoff eval` runs on: a private `signoff dev`, or an existing one.

Private (the default): `signoff dev` on free ports and a temporary home, its scripts
directory holding the scenarios' scripts; stopped with Ctrl-C at the end. Existing
(`SIGNOFF_TEMPORAL_ADDRESS` set): its worker and store, as the settings name them.

Either way this process also runs the fault workers (`eval_faults.py`), each on its own
task queue: scenarios with such a fault start their run there.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from temporalio.client import Client
from temporalio.runtime import (
    LogForwardingConfig,
    LoggingConfig,
    Runtime,
    TelemetryConfig,
    TelemetryFilter,
)

from activities.store import make_engine
from signoff.config.data_converter import data_converter_for
from signoff.config.decision_keys import load_signer
from signoff.config.settings import Settings
from signoff.service.evals.runner import AttemptResult, EvalPlan, EvalStack, run_scenarios
from signoff.service.evals.scripts import scenario_scripts
from signoff.wiring.eval_faults import fault_workers
from signoff.wiring.local_stack import signoff_dev_stack

EXISTING_STACK_VARIABLE = "SIGNOFF_TEMPORAL_ADDRESS"


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


async def connect_logging_to_stderr(settings: Settings) -> Client:
    """The client the fault workers share; the SDK core's logs (a late refund answer is
    discarded with a warning, by design) go to Python logging, hence stderr: stdout
    holds the report, and `--json` must stay JSON."""
    logging_config = LoggingConfig(
        filter=TelemetryFilter(core_level="WARN", other_level="ERROR"),
        forwarding=LogForwardingConfig(logger=logging.getLogger("temporalio.core")),
    )
    runtime = Runtime(telemetry=TelemetryConfig(logging=logging_config))
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=data_converter_for(settings),
        runtime=runtime,
    )


async def run_on(
    settings: Settings, plan: EvalPlan, progress: Callable[[AttemptResult], None] | None
) -> list[AttemptResult]:
    client = await connect_logging_to_stderr(settings)
    engine = make_engine(settings.resolved_database_url)
    try:
        async with fault_workers(client, settings, engine) as fault_queues:
            stack = EvalStack(client, settings, engine, load_signer(settings), fault_queues)
            return await run_scenarios(stack, plan, progress)
    finally:
        engine.dispose()


def run_evals(
    plan: EvalPlan, progress: Callable[[AttemptResult], None] | None = None
) -> list[AttemptResult]:
    """Run on the stack the environment names, or on a private one. Raises
    ScenarioError (bad input) before anything starts."""
    if uses_existing_stack():
        return asyncio.run(run_on(Settings(), plan, progress))
    scripts = scenario_scripts(plan.scenarios)
    with private_stack(scripts) as settings:
        return asyncio.run(run_on(settings, plan, progress))
