"""What a process's memory is made of, read from inside it (`python -m bench.memory`).

RSS alone cannot say what grows. Beside it: Python's own heap (`sys.getallocatedblocks`,
the objects the collector tracks, by type), and glibc's malloc (`mallinfo2`: bytes in use
and bytes freed but kept), which holds everything not in Python's small-object arenas:
Python's large objects, SQLite's pages, and the Temporal SDK core (Rust, on the system
allocator). All are cheap enough to take at a checkpoint; tracemalloc was too slow.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

STATUS_FIELDS = ("VmRSS", "VmHWM", "RssAnon", "RssFile", "Threads")
TOP_TYPES = 15
# Writing 5 to /proc/<pid>/clear_refs resets VmHWM to the current RSS (Linux >= 4.0).
RESET_PEAK = "5"


def status_fields(status: str) -> dict[str, int]:
    """The fields of /proc/<pid>/status this probe reads, as ints (kB, or a count)."""
    found: dict[str, int] = {}
    for line in status.splitlines():
        name, _, value = line.partition(":")
        if name in STATUS_FIELDS:
            found[name] = int(value.split()[0])
    missing = [name for name in STATUS_FIELDS if name not in found]
    if missing:
        raise ValueError(f"no {', '.join(missing)} in this /proc status (a kernel thread?)")
    return found


def type_counts(objects: Iterable[object]) -> Counter[str]:
    """How many objects of each type, by the type's qualified name."""
    return Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in objects)


def grown_types(
    before: dict[str, int], after: dict[str, int], top: int = TOP_TYPES
) -> list[tuple[str, int]]:
    """The types whose count grew most from `before` to `after`, largest growth first."""
    grown = {name: count - before.get(name, 0) for name, count in after.items()}
    ranked = sorted(
        ((name, delta) for name, delta in grown.items() if delta > 0), key=lambda x: (-x[1], x[0])
    )
    return ranked[:top]


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _libc() -> Any:
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


def malloc_kib() -> dict[str, int] | None:
    """glibc's heap over every arena, in KiB: `in_use` (malloc'ed, not freed), `free`
    (freed but kept in the arenas), `mmapped` (large blocks, returned at free); None
    off glibc or before 2.33 (no mallinfo2)."""
    libc = _libc()
    if libc is None or not hasattr(libc, "mallinfo2"):
        return None
    libc.mallinfo2.restype = _MallInfo2
    info = libc.mallinfo2()
    return {
        "system": info.arena // 1024,
        "in_use": info.uordblks // 1024,
        "free": info.fordblks // 1024,
        "mmapped": info.hblkhd // 1024,
    }


PYMALLOC_LINES = {
    "# arenas allocated current": "arenas",
    "# bytes in allocated blocks": "in_blocks",
    "# bytes in available blocks": "available",
}


def pymalloc_stats(text: str) -> dict[str, int]:
    """From `sys._debugmallocstats()`'s text: Python's small-object arenas now (1 MiB
    each), and the bytes in their used and free blocks (KiB): arenas far above the
    blocks in use are Python's own fragmentation."""
    found: dict[str, int] = {}
    for line in text.splitlines():
        name, _, value = line.partition("=")
        key = PYMALLOC_LINES.get(name.strip())
        if key is not None:
            number = int(value.strip().replace(",", ""))
            found[key] = number if key == "arenas" else number // 1024
    if len(found) != len(PYMALLOC_LINES):
        raise ValueError("no pymalloc arena counts in this text (not _debugmallocstats?)")
    return found


def pymalloc_kib() -> dict[str, int]:
    """`pymalloc_stats` of this process: `_debugmallocstats` writes to C's stderr, so
    file descriptor 2 is pointed at a temporary file for the call."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile("w+") as captured:
        os.dup2(captured.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        captured.seek(0)
        return pymalloc_stats(captured.read())


def malloc_trim() -> bool:
    """Give glibc's freed-but-kept memory back to the system; False off glibc."""
    libc = _libc()
    if libc is None:
        return False
    return bool(libc.malloc_trim(0))


def reset_peak() -> bool:
    """VmHWM back to the current RSS, so the next read is the peak since now."""
    try:
        Path("/proc/self/clear_refs").write_text(RESET_PEAK)
    except OSError:
        return False
    return True


def snapshot() -> dict[str, Any]:
    """This process's memory now: /proc status, Python's heap, glibc's heap."""
    objects = gc.get_objects()
    counts = type_counts(objects)
    del objects
    return {
        "status_kib": status_fields(Path("/proc/self/status").read_text()),
        "allocated_blocks": sys.getallocatedblocks(),
        "gc_objects": sum(counts.values()),
        "types": dict(counts.most_common(200)),
        "malloc_kib": malloc_kib(),
        "pymalloc": pymalloc_kib(),
    }
