"""A `signoff dev` a test starts never outlives it (signoff/wiring/owned_processes.py):
not when it ignores Ctrl-C, not when the test's process exits without stopping it, not
when that process is killed outright (as pytest-timeout's thread method or an OOM kill
ends it, with no teardown at all).

The stand-in launcher starts a program in a session of its own, as `signoff dev` starts
the Temporal dev server, so that killing the launcher's group alone would miss it.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from signoff.wiring.owned_processes import start_owned, stop_owned

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

REPO_ROOT = Path(__file__).resolve().parents[2]
GONE_SECONDS = 30.0
POLL_SECONDS = 0.05
SHORT_GRACE_SECONDS = 0.5
# Starts a program in a session of its own (as `signoff dev` starts Temporal's server),
# prints its pid, and waits; on Ctrl-C it stops that program, as `signoff dev` stops its
# server. IGNORE makes it deaf to Ctrl-C, as a launcher stuck stopping.
LAUNCHER = """
import signal, subprocess, sys, time
if sys.argv[1] == "IGNORE":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
server = subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True
)
print(server.pid, flush=True)
try:
    time.sleep(600)
finally:
    server.terminate()
"""


def alive(pid: int) -> bool:
    """Running, not a zombie nobody reaped yet (a container's init may never reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def wait_until_gone(*pids: int) -> None:
    deadline = time.monotonic() + GONE_SECONDS
    while any(alive(pid) for pid in pids):
        assert time.monotonic() < deadline, [pid for pid in pids if alive(pid)]
        time.sleep(POLL_SECONDS)


def started_launcher(mode: str) -> tuple[subprocess.Popen[str], int]:
    launcher = start_owned(
        [sys.executable, "-c", LAUNCHER, mode], stdout=subprocess.PIPE, text=True
    )
    assert launcher.stdout is not None
    return launcher, int(launcher.stdout.readline())


def test_a_launcher_deaf_to_ctrl_c_is_killed_with_what_it_started() -> None:
    launcher, server = started_launcher("IGNORE")
    with launcher:
        stop_owned(launcher, SHORT_GRACE_SECONDS)
    assert launcher.returncode == -signal.SIGKILL
    wait_until_gone(server)


def test_a_launcher_that_stops_on_ctrl_c_is_stopped_by_it() -> None:
    launcher, server = started_launcher("LISTEN")
    with launcher:
        stop_owned(launcher, GONE_SECONDS)
    # Ended by its own Ctrl-C (Python re-raises an uncaught one as SIGINT), not killed.
    assert launcher.returncode == -signal.SIGINT
    wait_until_gone(server)


# The test's stand-in: starts an owned launcher, says the pids, then ends as told.
OWNER = """
import os, signal, subprocess, sys, time
from signoff.wiring.owned_processes import start_owned
launcher = start_owned(
    [sys.executable, "-c", sys.argv[2], "LISTEN"], stdout=subprocess.PIPE, text=True
)
print(launcher.pid, launcher.stdout.readline().strip(), flush=True)
if sys.argv[1] == "EXIT":
    sys.exit(0)  # no teardown: the interpreter's exit is all that is left
time.sleep(600)  # until killed
"""


def started_owner(mode: str) -> tuple[subprocess.Popen[str], int, int]:
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, mode, LAUNCHER],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
    )
    assert owner.stdout is not None
    launcher, server = (int(pid) for pid in owner.stdout.readline().split())
    return owner, launcher, server


def test_an_owner_that_exits_without_stopping_it_stops_it_on_the_way_out() -> None:
    owner, launcher, server = started_owner("EXIT")
    with owner:
        assert owner.wait(timeout=GONE_SECONDS) == 0
    # Stopped before the owner ended, not some time after.
    assert not alive(launcher)
    wait_until_gone(server)


def test_an_owner_killed_outright_takes_it_down() -> None:
    owner, launcher, server = started_owner("SLEEP")
    with owner:
        owner.kill()
    wait_until_gone(launcher, server)
