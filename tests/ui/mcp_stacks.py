"""A `signoff dev` stack whose profile pins a running test MCP server: the profile's
template is filled with the server's URL and the pin it advertises now, and the stack's
scripted models come from tests/ui/scripts."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from activities.mcp.resolve import resolve_server
from signoff.wiring.local_stack import signoff_dev_stack
from tests.mcp.conftest import TIMEOUT_SECONDS, RunningServer, declared
from tests.ui.conftest import DevStack

SCRIPTS = Path(__file__).parent / "scripts"
# The repository: the team's Python tools (tests/tools) import from it, as a team's would.
REPOSITORY = Path(__file__).parents[2]


@contextmanager
def pinned_stack(
    home: Path, server: RunningServer, name: str, template: str, queue: str
) -> Iterator[DevStack]:
    # A thread of its own: Playwright's event loop runs in this one.
    with ThreadPoolExecutor(max_workers=1) as thread:
        resolved = thread.submit(
            asyncio.run, resolve_server(name, declared(url=server.url), TIMEOUT_SECONDS)
        ).result()
    assert resolved.advertised is not None
    profile = home / f"{name}.toml"
    profile.write_text(template.format(url=server.url, pin=resolved.advertised))
    with signoff_dev_stack(
        home,
        task_queue=f"{queue}-{os.getpid()}",
        SIGNOFF_PROFILES=str(profile),
        SIGNOFF_SCRIPTS_DIR=str(SCRIPTS),
        PYTHONPATH=str(REPOSITORY),
    ) as (env, _):
        yield DevStack(env=env, home=home, ui_url=f"http://127.0.0.1:{env['SIGNOFF_UI_PORT']}")
