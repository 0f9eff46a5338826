"""Processes that end with the process that started them: the `signoff dev` stacks of the
tests and the benches, and what those start.

A stack is a tree: the launcher, the Temporal dev server it starts in a session of its
own (so that a terminal's Ctrl-C reaches the launcher first), the programs its worker
starts. When a test's fixture never ran its teardown (pytest-timeout ended the test, the
test process was killed), or the launcher did not stop when asked, that tree stayed
behind, holding ports, CPU and memory under the next tests.

So an owned process leads a process group of its own and is stopped in three ways:
- `stop_owned`: Ctrl-C (SIGINT) to the leader alone, so that it stops what it started in
  its order; after `grace` seconds, SIGKILL to whatever is left of its group and of the
  processes it had started (found before it was asked to stop: once it is gone, they
  belong to init);
- at interpreter exit, each owned process still running is stopped the same way;
- on Linux, a process started from the main thread gets SIGINT when its parent dies
  however it dies (prctl's PR_SET_PDEATHSIG), SIGKILL included, so it stops itself.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

PROC = Path("/proc")
PR_SET_PDEATHSIG = 1  # linux/prctl.h
EXIT_GRACE_SECONDS = 10.0

_owned: set[subprocess.Popen[Any]] = set()


def _stop_at_death_of_parent() -> Callable[[], None] | None:
    """What the child runs between fork and exec so that it gets SIGINT when its parent
    dies; None where that cannot hold: off Linux, and from a thread other than the main
    one (the signal follows the thread that forked, which may end long before the
    process)."""
    if not sys.platform.startswith("linux") or threading.current_thread() is not (
        threading.main_thread()
    ):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork
    parent = os.getpid()

    def in_child() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGINT, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the prctl took hold
            os.kill(os.getpid(), signal.SIGINT)

    return in_child


def start_owned(command: Sequence[str], **popen: Any) -> subprocess.Popen[Any]:
    """`command` started as the leader of a process group of its own, stopped at the
    latest when this interpreter exits or dies."""
    process: subprocess.Popen[Any] = subprocess.Popen(
        list(command), start_new_session=True, preexec_fn=_stop_at_death_of_parent(), **popen
    )
    _owned.add(process)
    return process


def _start_time(pid: int) -> str | None:
    """The process's start time (in clock ticks since boot), which tells a process from a
    later one given the same id; None once it is gone."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return stat.rpartition(")")[2].split()[19]  # field 22, counted past the command


def _parent_ids() -> dict[int, int]:
    parents: dict[int, int] = {}
    for entry in PROC.iterdir() if PROC.is_dir() else ():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
    return parents


def descendants(pid: int) -> dict[int, str]:
    """Every process under `pid` now, each with its start time (none where /proc is not)."""
    parents = _parent_ids()
    found: dict[int, str] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, its_parent in parents.items():
            started = _start_time(child) if its_parent == parent else None
            if started is not None and child not in found:
                found[child] = started
                frontier.append(child)
    return found


def stop_owned(process: subprocess.Popen[Any], grace: float) -> None:
    """Ctrl-C to the leader, then, after at most `grace` seconds, SIGKILL to everything it
    leaves behind."""
    _owned.discard(process)
    if process.poll() is not None:
        return  # ended and waited for already: its id, and its group's, may be another's now
    below = descendants(process.pid)
    try:
        process.send_signal(signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        for pid, started in below.items():
            if _start_time(pid) == started:  # still that process, not a later one
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        process.wait()


@atexit.register
def _stop_every_owned_process() -> None:
    for process in list(_owned):
        stop_owned(process, EXIT_GRACE_SECONDS)
