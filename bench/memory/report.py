"""`bench/results/MEMORY.md`: what `python -m bench.memory` measured, one column per checkpoint.

Each checkpoint has the worker process's memory once every started run waits
("filled"), then after each reconcile round the bench forced, with the round's peak.
Pure formatting of the probe's answers (`bench/memory/probed_dev.py`), written again after
every checkpoint so that a bench stopped early leaves what it reached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common.paths import RESULTS_DIR
from bench.memory.heap_probe import grown_types

MEMORY = RESULTS_DIR / "MEMORY.md"
KIB_PER_MIB = 1024


@dataclass
class MemoryPoint:
    waiting: int  # distinct runs waiting in the read model
    fill_seconds: float  # from the checkpoint before to every run of this one waiting
    filled: dict[str, Any]  # the probe's snapshot once every run waits
    rounds: list[dict[str, Any]] = field(default_factory=list)  # forced reconcile rounds
    trimmed: dict[str, Any] | None = None  # after malloc_trim, at the last checkpoint


def mib(kib: int | None) -> str:
    return "n/a" if kib is None else f"{kib / KIB_PER_MIB:,.0f}"


def _rss(shot: dict[str, Any]) -> str:
    return mib(shot["status_kib"]["VmRSS"])


def _malloc(shot: dict[str, Any]) -> str:
    heap = shot.get("malloc_kib")
    if heap is None:
        return "n/a"
    return (
        f"{mib(heap.get('system'))} / {mib(heap['in_use'])} / {mib(heap['free'])} / "
        f"{mib(heap['mmapped'])}"
    )


def _arenas(shot: dict[str, Any]) -> str:
    """Python's arenas (MiB, 1 each) and the KiB in their used blocks, as MiB."""
    stats = shot.get("pymalloc")
    if stats is None:  # an answer from before the probe read it
        return "n/a"
    return f"{stats['arenas']:,} / {mib(stats['in_blocks'])}"


def _heap(shot: dict[str, Any]) -> str:
    return f"{shot['allocated_blocks'] / 1000:,.0f}k / {shot['gc_objects'] / 1000:,.0f}k"


def rows(points: list[MemoryPoint]) -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = [
        ("waiting runs (read model)", [f"{p.waiting:,}" for p in points]),
        (
            "filling time since the checkpoint before (min)",
            [f"{p.fill_seconds / 60:.1f}" for p in points],
        ),
        ("RSS, every run waiting (MiB)", [_rss(p.filled) for p in points]),
        (
            "RssAnon, every run waiting (MiB)",
            [mib(p.filled["status_kib"]["RssAnon"]) for p in points],
        ),
        ("Python heap: allocated blocks / gc-tracked objects", [_heap(p.filled) for p in points]),
        ("Python arenas: MiB / in blocks (MiB)", [_arenas(p.filled) for p in points]),
        (
            "glibc malloc: from the system / in use / freed, kept / mmapped (MiB)",
            [_malloc(p.filled) for p in points],
        ),
        ("threads", [str(p.filled["status_kib"]["Threads"]) for p in points]),
    ]
    most = max((len(p.rounds) for p in points), default=0)
    for number in range(most):
        here = [p.rounds[number] if number < len(p.rounds) else None for p in points]
        label = f"reconcile round {number + 1}"
        found += [
            (
                f"{label}: seconds; added, removed, updated",
                [
                    "-"
                    if r is None
                    else f"{r['seconds']:.1f}; {r['counts']['added']}, "
                    f"{r['counts']['removed']}, {r['counts']['updated']}"
                    for r in here
                ],
            ),
            (
                f"{label}: RSS before / peak during / after (MiB)",
                [
                    "-"
                    if r is None
                    else f"{_rss(r['before'])} / {mib(r['peak_kib'])} / {_rss(r['after'])}"
                    for r in here
                ],
            ),
            (
                f"{label}: Python heap after",
                ["-" if r is None else _heap(r["after"]) for r in here],
            ),
            (
                f"{label}: glibc after (MiB)",
                ["-" if r is None else _malloc(r["after"]) for r in here],
            ),
        ]
    if any(p.trimmed for p in points):
        found.append(
            (
                "after malloc_trim: RSS (MiB); glibc (MiB)",
                [
                    "-" if p.trimmed is None else f"{_rss(p.trimmed)}; {_malloc(p.trimmed)}"
                    for p in points
                ],
            )
        )
    return found


def table(points: list[MemoryPoint]) -> list[str]:
    header = "| measure | " + " | ".join(f"{p.waiting:,} waiting" for p in points) + " |"
    lines = [header, "|" + " --- |" * (len(points) + 1)]
    lines += [f"| {name} | " + " | ".join(cells) + " |" for name, cells in rows(points)]
    return lines


def grown(points: list[MemoryPoint]) -> list[str]:
    """The object types that grew most from the first checkpoint to the last."""
    if len(points) < 2:
        return []
    first, last = points[0].filled["types"], points[-1].filled["types"]
    return [f"- `{name}`: +{delta:,}" for name, delta in grown_types(first, last)] or [
        "- none grew"
    ]


def write_memory(
    points: list[MemoryPoint], setup: list[str], notes: list[str], path: Path = MEMORY
) -> None:
    from bench.common.machine import machine  # git and the temporal binary: not in unit tests

    lines = [
        "# Worker memory with thousands of runs waiting",
        "",
        "Written by `python -m bench.memory`; regenerate it rather than edit it.",
        "",
        *machine(),
        *setup,
        "",
        *table(points),
        "",
        "Object types (gc-tracked) that grew most from the first checkpoint to the last, "
        "every run waiting:",
        "",
        *grown(points),
    ]
    if notes:
        lines += ["", *notes]
    path.write_text("\n".join(lines) + "\n")
