"""The dev stack the end-to-end tests share: `signoff dev` as a user starts it.

The launcher starts the Temporal dev server from the venv's `temporal` binary, a worker
and the demo data, on free ports and a private home; it is stopped with Ctrl-C (SIGINT)
after the last test of this package, and must stop cleanly.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

from tests.e2e.cli import SIGNOFF

READY_SECONDS = 90


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="package")
def dev_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    home = tmp_path_factory.mktemp("signoff-home")
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANTHROPIC")}
    env.update(
        SIGNOFF_HOME=str(home),
        SIGNOFF_TEMPORAL_ADDRESS=f"127.0.0.1:{free_port()}",
        SIGNOFF_TEMPORAL_UI_PORT=str(free_port()),
        SIGNOFF_UI_PORT=str(free_port()),
        SIGNOFF_TASK_QUEUE=f"e2e-{os.getpid()}",
    )
    log = (home / "dev.log").open("w")
    launcher = subprocess.Popen([SIGNOFF, "dev"], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + READY_SECONDS
        while "Press Ctrl-C" not in (home / "dev.log").read_text():
            assert launcher.poll() is None, (home / "dev.log").read_text()
            assert time.monotonic() < deadline, "signoff dev did not get ready"
            time.sleep(0.2)
        yield env
    finally:
        launcher.send_signal(signal.SIGINT)
        try:
            launcher.wait(timeout=30)
        finally:
            if launcher.poll() is None:
                launcher.kill()
            log.close()
    assert launcher.returncode == 0, (home / "dev.log").read_text()
    assert "Stopped the worker and the Temporal dev server" in (home / "dev.log").read_text()
