"""The generic sender's script of "Connect your helpdesk", run as printed against the
reviewer UI served by uvicorn on a free port (Temporal: the time-skipping server): it
gets 202 and a triage the first time, and 200 as a delivery seen before the second."""

from __future__ import annotations

import ast
import asyncio
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import uvicorn
from temporalio.testing import WorkflowEnvironment

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.wiring.local_stack import free_port
from tests.intake.conftest import DEMO_GENERIC

PAGE = Path(__file__).resolve().parents[2] / "docs" / "connect-helpdesk.md"
SERVER_START_SECONDS = 10


def the_script() -> str:
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.DOTALL)
    (script,) = [block for block in blocks if "X-Signoff-Signature" in block]
    ast.parse(script)
    return script


async def test_the_pages_sender_script_is_answered_as_the_page_says(
    settings: Settings, time_skipping_env: WorkflowEnvironment
) -> None:
    target = time_skipping_env.client.service_client.config.target_host
    app = create_app(settings.model_copy(update={"temporal_address": target}))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            await asyncio.sleep(0.05)
        env = {
            **os.environ,
            "INTAKE_SECRET": DEMO_GENERIC,
            "REVIEWER_UI_URL": f"http://127.0.0.1:{port}",
        }

        def run() -> str:
            done = subprocess.run(
                [sys.executable, "-c", the_script()],
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, done.stderr
            return done.stdout

        first = await asyncio.to_thread(run)
        assert first.startswith("202 {'tenant_id': 'demo', 'ticket_id': 'T-"), first
        assert "'replayed': False" in first
        second = await asyncio.to_thread(run)
        assert second.startswith("200 ") and "'replayed': True" in second
        run_id = re.search(r"'run_id': '([^']+)'", first)
        assert run_id is not None
        await time_skipping_env.client.get_workflow_handle(run_id.group(1)).terminate("test over")
    finally:
        server.should_exit = True
        thread.join(timeout=10)
