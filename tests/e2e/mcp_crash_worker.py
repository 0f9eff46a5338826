"""A worker process that dies the hard way right after an MCP server carried out an
irreversible call, before the effect was stored.

Started as a subprocess by `test_mcp_crash.py`: `signoff worker`'s worker
(`build_worker`), except that the effect of an MCP tool, once the server has answered
(the label is made), kills its own process with SIGKILL, as a machine that loses power
at that moment. No workflow cache, so the next workflow task goes to the shared queue.

Usage: python -m tests.e2e.mcp_crash_worker TEMPORAL_ADDRESS TASK_QUEUE DATABASE_URL HOME
PROFILES
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from temporalio.client import Client

from activities.store import make_engine
from activities.tool_effects import ToolEffects
from signoff.config.data_converter import data_converter
from signoff.config.profiles import load_profile_file
from signoff.config.settings import Settings
from signoff.wiring.worker import build_worker
from tests.workflow.approvals import TEST_KEYS, install_test_keys
from workflows.actions import ToolActionCommand


class EffectsThatCrashAfterTheCall(ToolEffects):
    def _mcp_call(self, command: ToolActionCommand) -> Callable[..., Any] | None:
        call = super()._mcp_call(command)
        if call is None:
            return None

        async def then_die(arguments: dict[str, Any], context: Any) -> Any:
            await call(arguments, context)
            os.kill(os.getpid(), signal.SIGKILL)

        return then_die


def crash_settings(
    address: str, task_queue: str, database_url: str, home: str, profiles: str
) -> Settings:
    return Settings(
        home=Path(home),
        temporal_address=address,
        task_queue=task_queue,
        database_url=database_url,
        profiles=Path(profiles),
        scripts_dir=Path(__file__).with_name("scripts"),
        worker_max_cached_workflows=0,
    )


async def main(address: str, task_queue: str, database_url: str, home: str, profiles: str) -> None:
    settings = crash_settings(address, task_queue, database_url, home, profiles)
    install_test_keys(settings)
    client = await Client.connect(address, data_converter=data_converter)
    engine = make_engine(database_url)
    effects = EffectsThatCrashAfterTheCall(
        engine, TEST_KEYS, load_profile_file(Path(profiles)), settings.mcp_timeout_seconds
    )
    async with build_worker(client, settings, engine, effects=effects):
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
