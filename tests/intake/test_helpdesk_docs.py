""" "Try it on the demo" of docs/connect-helpdesk.md, run as written: its commands through
bash on a terminal, in a folder of the reader's own, against the reviewer UI served by
uvicorn on a free port (Temporal: the time-skipping server).

The first terminal's commands run up to `make demo`; the server then starts as
`make demo` would, on the environment that terminal has at that line (its
SIGNOFF_INTAKE_SECRETS, which a page that set it after `make demo` would leave unset).
The second terminal starts from a fresh environment, as a new terminal does, with the
page's generic script saved as `send_ticket.py`; its address is the server's free port
(the page's http://localhost:8000). It gets 202 and a triage for the tenant `demo` the
first time, and 200 as a delivery seen before the second.
"""

from __future__ import annotations

import ast
import asyncio
import os
import re
import threading
import time
from pathlib import Path

import uvicorn
from temporalio.testing import WorkflowEnvironment

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.wiring.local_stack import free_port
from tests.docs.shell_commands import REPO_ROOT, run_in_terminal, shell_commands

PAGE = REPO_ROOT / "docs" / "connect-helpdesk.md"
SECTION = "Try it on the demo"
SERVER_START_SECONDS = 10


def the_script() -> str:
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.DOTALL)
    (script,) = [block for block in blocks if "X-Signoff-Signature" in block]
    ast.parse(script)
    return script


def a_readers_terminal(folder: Path) -> dict[str, str]:
    """A new terminal: no SIGNOFF_ setting, the repository's `.venv` in its folder."""
    (folder / ".venv").symlink_to(REPO_ROOT / ".venv")
    return {key: value for key, value in os.environ.items() if not key.startswith("SIGNOFF_")}


async def test_the_demo_section_runs_as_written(
    settings: Settings, time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    commands = shell_commands(PAGE, SECTION)
    at = commands.index("make demo")
    first_terminal, second_terminal = commands[:at], commands[at + 1 :]
    assert len(second_terminal) == 3, second_terminal  # the secret, then two deliveries
    folder = tmp_path / "reader"  # beside the server's home (the `settings` fixture's)
    folder.mkdir()
    env = a_readers_terminal(folder)
    (folder / "send_ticket.py").write_text(the_script())

    # The first terminal, to the line that starts the demo: what would it start with?
    started_with = 'printf "%s" "$SIGNOFF_INTAKE_SECRETS"'
    shown = await asyncio.to_thread(
        run_in_terminal,
        "\n".join([*first_terminal, started_with]),
        env,
        folder,
        stdout_apart=True,
    )
    assert shown.returncode == 0, shown.terminal
    assert shown.stdout == str(folder / "intake-secrets.json"), shown.stdout

    target = time_skipping_env.client.service_client.config.target_host
    served = settings.model_copy(
        update={"temporal_address": target, "intake_secrets": Path(shown.stdout)}
    )
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(served), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            await asyncio.sleep(0.05)
        second = {**env, "REVIEWER_UI_URL": f"http://127.0.0.1:{port}"}
        sent = await asyncio.to_thread(
            run_in_terminal, "\n".join(second_terminal), second, folder, stdout_apart=True
        )
        assert sent.returncode == 0, sent.terminal + sent.stdout
        first, again = sent.stdout.splitlines()
        assert first.startswith("202 {'tenant_id': 'demo', 'ticket_id': 'T-"), first
        assert "'replayed': False" in first
        assert again.startswith("200 ") and "'replayed': True" in again
        run_id = re.search(r"'run_id': '([^']+)'", first)
        assert run_id is not None
        await time_skipping_env.client.get_workflow_handle(run_id.group(1)).terminate("test over")
    finally:
        server.should_exit = True
        thread.join(timeout=10)
