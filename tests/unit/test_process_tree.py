"""A stack's launcher is stopped together with what it started (signoff/wiring/process_tree.py):
a launcher that ignores Ctrl-C, or that dies on it without stopping its server, leaves
nothing running behind it."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from signoff.wiring.process_tree import descendants, stop_tree

GONE_SECONDS = 10

# A launcher that starts a "server" in a session of its own (as `signoff dev` starts the
# Temporal dev server), prints its pid, then waits; `ignore` makes it deaf to SIGINT.
LAUNCHER = """
import signal, subprocess, sys, time
if sys.argv[1] == "ignore":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                          start_new_session=True)
print(server.pid, flush=True)
time.sleep(300)
"""


def running(pid: int) -> bool:
    """Alive and not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def gone(pid: int) -> bool:
    deadline = time.monotonic() + GONE_SECONDS
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@contextmanager
def launched(mode: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    with subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, mode], stdout=subprocess.PIPE, text=True
    ) as launcher:
        assert launcher.stdout is not None
        try:
            yield launcher, int(launcher.stdout.readline())
        finally:
            stop_tree(launcher, grace=0)


def test_the_tree_holds_the_server_started_in_a_session_of_its_own() -> None:
    with launched("ignore") as (launcher, server):
        assert server in {pid for pid, _ in descendants(launcher.pid)}


def test_a_launcher_deaf_to_ctrl_c_is_killed_with_its_server() -> None:
    with launched("ignore") as (launcher, server):
        stop_tree(launcher, grace=0.5)
        assert launcher.returncode is not None
        assert gone(server), "the server outlived its launcher"


def test_a_launcher_that_dies_on_ctrl_c_does_not_leave_its_server_behind() -> None:
    with launched("die") as (launcher, server):
        stop_tree(launcher, grace=30)
        assert launcher.returncode is not None and launcher.returncode != 0
        assert gone(server), "the server outlived its launcher"
