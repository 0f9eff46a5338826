"""docs/ask-the-customer.md, run as written: its profile checks (the page's example is
valid and offers `ask_customer`; a `reply_within` past 30 days prints the page's
error), and its Python script, which sends a signed customer reply to the reviewer UI
served by uvicorn on a free port, to a run that asked (Temporal: the time-skipping
server)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
from pathlib import Path

import uvicorn
from temporalio.testing import WorkflowEnvironment

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.handles import engine_of
from signoff.service.store import close_store, open_store
from signoff.wiring.local_stack import free_port
from tests.docs.shell_commands import REPO_ROOT, run_in_terminal, shell_commands
from tests.intake.conftest import DEMO_GENERIC
from tests.workflow.approvals import gate_run
from tests.workflow.fakes import FakeModel, text_reply, tool_reply
from tests.workflow.test_ask_customer import ASK, ASKING, waiting_for_customer
from tests.workflow.test_python_tools import on_profile, tool_results

PAGE = REPO_ROOT / "docs" / "ask-the-customer.md"
SERVER_START_SECONDS = 10


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", PAGE.read_text(), re.DOTALL)


def printed_after(command: str) -> list[str]:
    """The lines the page prints under `$ command`, up to the block's end."""
    after = PAGE.read_text().split(f"$ {command}\n", 1)[1]
    return after.split("```", 1)[0].splitlines()


def a_readers_terminal(folder: Path) -> dict[str, str]:
    (folder / ".venv").symlink_to(REPO_ROOT / ".venv")
    env = {key: value for key, value in os.environ.items() if not key.startswith("SIGNOFF_")}
    env["SIGNOFF_HOME"] = str(folder / "home")
    env["PATH"] = f"{REPO_ROOT / '.venv' / 'bin'}{os.pathsep}{env['PATH']}"
    return env


def test_the_profile_checks_print_what_the_page_says(tmp_path: Path) -> None:
    valid, too_long = shell_commands(PAGE)
    env = a_readers_terminal(tmp_path)
    (example,) = blocks("toml")
    (tmp_path / "profiles.toml").write_text(example)
    ran = run_in_terminal(valid, env, tmp_path)
    assert ran.returncode == 0, ran.terminal
    shown = ran.terminal.replace("\r\n", "\n").splitlines()
    expected = printed_after(valid)
    assert shown[0].startswith(expected[0].removesuffix("..."))
    assert shown[1:] == expected[1:]
    (tmp_path / "too-long.toml").write_text(
        example.replace("reply_within = 2", "reply_within = 60")
    )
    ran = run_in_terminal(too_long, env, tmp_path)
    assert ran.returncode == 2
    assert ran.terminal.replace("\r\n", "\n").splitlines() == printed_after(too_long)


async def test_the_pages_script_hands_the_reply_to_the_run_that_asked(
    settings: Settings, time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    (script,) = [block for block in blocks("python") if "/api/intake/replies" in block]
    folder = tmp_path / "reader"
    folder.mkdir()
    env = a_readers_terminal(folder)
    (folder / "send_reply.py").write_text(script)
    target = time_skipping_env.client.service_client.config.target_host
    served = settings.model_copy(update={"temporal_address": target})
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(served), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    store = open_store(served)
    model = FakeModel().enqueue(tool_reply(ASK), text_reply("Thanks for the photo."))
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            await asyncio.sleep(0.05)
        engine = engine_of(store)
        async with gate_run(time_skipping_env, model, engine, **on_profile(ASKING)) as handle:
            await waiting_for_customer(handle)
            reader = {
                **env,
                "INTAKE_SECRET": DEMO_GENERIC,
                "REVIEWER_UI_URL": f"http://127.0.0.1:{port}",
            }
            sent = await asyncio.to_thread(
                run_in_terminal, ".venv/bin/python send_reply.py", reader, folder, (), True
            )
            assert sent.returncode == 0, sent.terminal + sent.stdout
            assert sent.stdout.startswith("202 "), sent.stdout
            assert (await handle.result()).status == "completed"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        close_store(store)
    (result,) = tool_results(model, 1)
    assert json.loads(result.content)["customer_reply"]["text"] == "Here is the photo."
