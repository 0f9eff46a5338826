"""A clean install runs: the project as the Dockerfile installs it, without extras.

The sources the image copies go to a fresh folder, and `uv sync --locked --no-editable`
installs them into a fresh virtualenv from uv.lock, with no extra (no dev tools, no
PostgreSQL driver). That venv's own commands must then work: every `--help`, a worker
polling a dev server started from the venv's own `temporal` binary, and the reviewer UI
answering. A runtime dependency declared only among the dev extras (as httpx once was)
fails here by name, in the traceback of the command that needed it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from signoff.config.data_converter import data_converter
from signoff.config.decision_keys import load_signer
from signoff.config.settings import Settings
from signoff.wiring.local_stack import free_port
from tests.deploy.compose_file import REPO_ROOT
from tests.deploy.worker_process import wait_until, worker_process

pytestmark = pytest.mark.devserver

# What the Dockerfile copies into its build stage, and nothing else.
SOURCES = (
    "pyproject.toml",
    "uv.lock",
    "README.md",
    "workflows",
    "activities",
    "approvals_ui",
    "signoff",
)
# A bound on waiting for the install (a cold uv cache downloads every wheel), not a timing.
INSTALL_SECONDS = 600
HELP_SECONDS = 60


def uv_binary() -> str:
    """The uv that `make` installs in .tools, else one on the PATH."""
    pinned = REPO_ROOT / ".tools" / "bin" / "uv"
    found = str(pinned) if pinned.exists() else shutil.which("uv")
    if found is None:
        pytest.fail("uv not found: run `make test`, which installs it in .tools/.")
    return found


def clean_environment(**extra: str) -> dict[str, str]:
    """This process's environment without its venv (nothing of it may leak in) and
    without model keys (the scripted model)."""
    left_out = {"VIRTUAL_ENV", "PYTHONPATH", "UV_PROJECT_ENVIRONMENT"}
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in left_out and not key.startswith(("ANTHROPIC", "OPENAI"))
    }
    env.update(UV_PYTHON_DOWNLOADS="never", **extra)
    return env


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A virtualenv holding signoff as a clean install leaves it: its bin folder."""
    root = tmp_path_factory.mktemp("clean-install")
    source = root / "source"
    source.mkdir()
    for name in SOURCES:
        origin = REPO_ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(origin, source / name)
    venv = root / "venv"
    installed = subprocess.run(
        [uv_binary(), "sync", "--locked", "--no-editable", "--python", sys.executable],
        cwd=source,
        env=clean_environment(UV_PROJECT_ENVIRONMENT=str(venv)),
        capture_output=True,
        text=True,
        timeout=INSTALL_SECONDS,
    )
    assert installed.returncode == 0, installed.stderr
    yield venv / "bin"


def test_the_clean_install_is_the_package_and_not_this_checkout(clean_venv: Path) -> None:
    where = subprocess.run(
        [str(clean_venv / "python"), "-c", "import signoff; print(signoff.__file__)"],
        cwd=clean_venv,
        env=clean_environment(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(clean_venv.parent), where.stdout
    dev_tools = subprocess.run(
        [str(clean_venv / "python"), "-c", "import pytest"],
        env=clean_environment(),
        capture_output=True,
    )
    assert dev_tools.returncode != 0, "the dev extras were installed too"


def test_every_command_shows_its_help(clean_venv: Path) -> None:
    """`signoff --help` as the console script, then every command's and sub-command's
    `--help` in one process of the clean install (tests/deploy/every_help.py)."""
    top = subprocess.run(
        [str(clean_venv / "signoff"), "--help"],
        cwd=clean_venv,
        env=clean_environment(),
        capture_output=True,
        text=True,
        timeout=HELP_SECONDS,
    )
    assert top.returncode == 0 and "Usage:" in top.stdout, top.stderr
    every = subprocess.run(
        [str(clean_venv / "python"), str(Path(__file__).parent / "every_help.py")],
        cwd=clean_venv,
        env=clean_environment(),
        capture_output=True,
        text=True,
        timeout=HELP_SECONDS,
    )
    assert every.returncode == 0, every.stderr
    shown = every.stdout.splitlines()
    # The walk saw the whole tree: groups, their sub-commands and the wiring's commands.
    assert {"signoff user add --help", "signoff audit verify --help", "signoff worker --help"} <= (
        set(shown)
    ), shown


async def test_the_worker_polls_and_the_ui_answers(clean_venv: Path, tmp_path: Path) -> None:
    server = await WorkflowEnvironment.start_local(
        data_converter=data_converter, dev_server_existing_path=str(clean_venv / "temporal")
    )
    try:
        address = server.client.service_client.config.target_host
        env = clean_environment(
            SIGNOFF_HOME=str(tmp_path),
            SIGNOFF_TEMPORAL_ADDRESS=address,
            SIGNOFF_TASK_QUEUE=f"clean-install-{os.getpid()}",
        )
        # The decision service's keys first (this home is its host too): a worker checks
        # decisions with their public half, and trusts the key its configuration pins.
        ring = Settings(home=tmp_path).signing_keys_path
        env["SIGNOFF_DECISION_SIGNING_KEYS_FILE"] = str(ring)
        keys = subprocess.run(
            [str(clean_venv / "signoff"), "keys", "init"], env=env, capture_output=True, text=True
        )
        assert keys.returncode == 0, keys.stderr
        env["SIGNOFF_TRUSTED_KEY_IDS"] = load_signer(Settings(home=tmp_path)).key_id
        with worker_process(env, signoff=str(clean_venv / "signoff")) as (worker, _):
            assert worker.poll() is None
        port = free_port()
        with (tmp_path / "ui.log").open("w") as log:
            ui = subprocess.Popen(
                [str(clean_venv / "signoff"), "ui", "--port", str(port)],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                wait_until(
                    lambda: ui.poll() is not None or signin_answers(port), "the UI to answer"
                )
                assert ui.poll() is None, (tmp_path / "ui.log").read_text()
            finally:
                ui.kill()
                ui.wait()
    finally:
        await server.shutdown()


def signin_answers(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/signin", timeout=2).status_code == 200
    except httpx.TransportError:
        return False
