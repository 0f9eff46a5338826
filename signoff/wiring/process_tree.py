"""Stopping a process together with every process it started, on any way out.

`signoff dev` starts the Temporal dev server in a session of its own (so that a Ctrl-C
in a terminal reaches the launcher alone, which then stops it in order). If the launcher
dies without that stop (killed, or its parent timed out), the server and the worker live
on, orphaned. So the tree is read from /proc while the launcher still holds it, the
launcher is asked to stop (SIGINT) and given time, and whatever of that tree still runs
afterwards is killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

PROC = Path("/proc")


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, start time) of a live process; None once it is gone (or no /proc)."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # The command name, in parentheses, may hold spaces: the fields follow its last ')'.
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), fields[19]


def descendants(pid: int) -> list[tuple[int, str]]:
    """Every live process below `pid`, each with its start time (so that a pid the
    system gave to another process meanwhile is never signalled)."""
    children: dict[int, list[tuple[int, str]]] = {}
    for entry in PROC.iterdir() if PROC.is_dir() else ():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            children.setdefault(stat[0], []).append((int(entry.name), stat[1]))
    found: list[tuple[int, str]] = []
    below = list(children.get(pid, []))
    while below:
        process = below.pop()
        found.append(process)
        below.extend(children.get(process[0], []))
    return found


def stop_tree(process: subprocess.Popen[bytes] | subprocess.Popen[str], grace: float) -> None:
    """SIGINT to `process`, `grace` seconds to stop; then SIGKILL to it and to whatever
    it had started that still runs."""
    tree = descendants(process.pid)
    try:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid, started in tree:
            stat = _stat(pid)
            if stat is not None and stat[1] == started:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
