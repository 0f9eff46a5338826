"""Starting `signoff dev` as a user does, for the tests that need the whole stack.

The launcher runs on free ports and a private home; it is stopped with Ctrl-C (SIGINT)
and given time to stop cleanly, then killed with all it started if it did not. It never
outlives the process that started it (signoff/wiring/owned_processes.py).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from signoff.wiring.owned_processes import start_owned, stop_owned

SIGNOFF = str(Path(sys.executable).parent / "signoff")
READY_SECONDS = 90
STOP_SECONDS = 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def stack_env(home: Path, task_queue: str, **extra: str) -> dict[str, str]:
    """The process environment of a private stack: no model key, free ports."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANTHROPIC")}
    env.update(
        SIGNOFF_HOME=str(home),
        SIGNOFF_TEMPORAL_ADDRESS=f"127.0.0.1:{free_port()}",
        SIGNOFF_TEMPORAL_HTTP_ADDRESS=f"127.0.0.1:{free_port()}",
        SIGNOFF_TEMPORAL_UI_PORT=str(free_port()),
        SIGNOFF_UI_PORT=str(free_port()),
        SIGNOFF_TASK_QUEUE=task_queue,
    )
    env.update(extra)
    return env


PORT_ATTEMPTS = 3


class PortTaken(Exception):
    """A port picked free was taken before the stack bound it: try again with others."""


@contextmanager
def running_signoff_dev(
    env: dict[str, str], log_path: Path, command: Sequence[str] = ()
) -> Iterator[subprocess.Popen[bytes]]:
    """`signoff dev` (or `command`, a launcher that runs it) until it says it is ready;
    Ctrl-C on the way out."""
    temporal_log = Path(env["SIGNOFF_HOME"]) / "temporal.log"
    with log_path.open("w") as log:
        launcher = start_owned(
            list(command) or [SIGNOFF, "dev"], env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + READY_SECONDS
            while "Press Ctrl-C" not in log_path.read_text():
                if launcher.poll() is not None:
                    server_log = temporal_log.read_text() if temporal_log.exists() else ""
                    said = log_path.read_text()
                    # Taken before `signoff dev` looked, or between its look and the bind.
                    if "already listens on" in said or "address already in use" in server_log:
                        raise PortTaken(said)
                    raise AssertionError(said)
                assert time.monotonic() < deadline, "signoff dev did not get ready"
                time.sleep(0.2)
            if "Reviewer UI not started" in log_path.read_text():
                raise PortTaken(log_path.read_text())
            yield launcher
        finally:
            stop_owned(launcher, STOP_SECONDS)


@contextmanager
def signoff_dev_stack(
    home: Path, task_queue: str, command: Sequence[str] = (), **extra: str
) -> Iterator[tuple[dict[str, str], subprocess.Popen[bytes]]]:
    """A private `signoff dev` on free ports, ready. A port is picked free and bound a
    moment later by the stack; another process may take it meanwhile, so a start that
    fails on a taken port is tried again on fresh ports."""
    for attempt in range(1, PORT_ATTEMPTS + 1):
        env = stack_env(home, task_queue, **extra)
        try:
            with running_signoff_dev(env, home / "dev.log", command) as launcher:
                yield env, launcher
                return
        except PortTaken:
            if attempt == PORT_ATTEMPTS:
                raise
