"""`signoff worker` as a real process, as an operator starts it, for the deployment tests."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from signoff.config.settings import Settings
from signoff.wiring.local_stack import SIGNOFF
from tests.workflow.approvals import TEST_SIGNER, install_test_public_keys

# A fresh worker process takes seconds to import everything; more on a busy machine.
READY_SECONDS = 60


def wait_until(condition: Callable[[], object], what: str, within: float = READY_SECONDS) -> None:
    """Poll `condition` until it holds; a bound on waiting, never a timing assertion."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.2)


def worker_environment(home: Path, **settings: str) -> dict[str, str]:
    """This process's environment without any model key, plus signoff's settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANTHROPIC")}
    # A worker trusts only the decision keys its configuration pins: the tests' one.
    env.update(SIGNOFF_HOME=str(home), SIGNOFF_TRUSTED_KEY_IDS=TEST_SIGNER.key_id, **settings)
    # A worker host holds the decision service's public keys and no private one.
    if not Settings(home=home).public_keys_path.exists():
        install_test_public_keys(home)
    return env


@contextmanager
def worker_process(
    env: dict[str, str], name: str = "worker", signoff: str = SIGNOFF
) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """A started `signoff worker` (this venv's, or the `signoff` command given) that polls;
    killed at the end if it still runs.

    Ready means its heartbeat file exists: the worker touches it once it polls."""
    home = Path(env["SIGNOFF_HOME"])
    alive = home / f"{name}-alive"
    log_path = home / f"{name}.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [signoff, "worker"],
            env={**env, "SIGNOFF_WORKER_HEARTBEAT_FILE": str(alive)},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until(lambda: alive.exists() or process.poll() is not None, f"{name} to poll")
            assert process.poll() is None, log_path.read_text()
            yield process, log_path
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
