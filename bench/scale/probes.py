"""Small pure pieces of `python -m bench.scale`: its checkpoints, and memory read from /proc.

The worker of `signoff dev` runs in the launcher's own process (signoff/wiring/dev.py,
with the embedded reviewer UI), and the Temporal dev server is the launcher's child: both
are found by process id, never by name, so another stack on the machine is never read.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CHECKPOINTS = (1000, 5000, 10000)
QUICK_CHECKPOINTS = (200, 500)
KIB_PER_MIB = 1024


def checkpoints(text: str) -> tuple[int, ...]:
    """`--checkpoints 1000,5000,10000`: positive counts of waiting runs, increasing."""
    try:
        counts = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a comma-separated list of run counts, e.g. 1000,5000,10000"
        ) from None
    if not counts or any(count < 1 for count in counts):
        raise argparse.ArgumentTypeError(
            f"'{text}': give at least one count, each at least 1, e.g. 1000,5000,10000"
        )
    if list(counts) != sorted(set(counts)):
        raise argparse.ArgumentTypeError(f"'{text}': the counts must increase, e.g. 1000,5000")
    return counts


@dataclass(frozen=True)
class Memory:
    """A process's resident set now and its peak since it started, in MiB."""

    rss_mib: float
    peak_mib: float


def memory_of_status(status: str) -> Memory:
    """VmRSS and VmHWM from the text of /proc/<pid>/status (`VmRSS:\\t  180300 kB`)."""
    fields = {}
    for line in status.splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            number, unit = value.split()
            if unit != "kB":
                raise ValueError(f"unexpected unit '{unit}' for {name} in /proc status")
            fields[name] = int(number) / KIB_PER_MIB
    if len(fields) != 2:
        raise ValueError("no VmRSS and VmHWM in this /proc status (a kernel thread, or gone?)")
    return Memory(rss_mib=fields["VmRSS"], peak_mib=fields["VmHWM"])


def memory_of(pid: int) -> Memory:
    return memory_of_status(Path(f"/proc/{pid}/status").read_text())


def parent_of_stat(stat: str) -> int:
    """The parent pid from /proc/<pid>/stat; the name in parentheses may hold spaces."""
    return int(stat.rpartition(")")[2].split()[1])


def children_of(pid: int) -> list[int]:
    """The live child processes of `pid`, read from every /proc/<n>/stat."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended meanwhile
            continue
        if parent_of_stat(stat) == pid:
            found.append(int(entry.name))
    return sorted(found)
