"""bench/memory/'s pure pieces: /proc status fields, object types that grew,
and the report's table of the probe's answers."""

from __future__ import annotations

from typing import Any

import pytest

from bench.memory.heap_probe import (
    grown_types,
    malloc_kib,
    pymalloc_stats,
    snapshot,
    status_fields,
    type_counts,
)
from bench.memory.report import MemoryPoint, grown, table

STATUS = """Name:\tpython
VmHWM:\t  230400 kB
VmRSS:\t  184320 kB
RssAnon:\t  150000 kB
RssFile:\t   34320 kB
Threads:\t12
"""


def shot(rss_kib: int, types: dict[str, int]) -> dict[str, Any]:
    return {
        "status_kib": {
            "VmRSS": rss_kib,
            "VmHWM": rss_kib,
            "RssAnon": rss_kib // 2,
            "RssFile": 0,
            "Threads": 12,
        },
        "allocated_blocks": 1_000_000,
        "gc_objects": 300_000,
        "types": types,
        "malloc_kib": {"system": 71_680, "in_use": 51_200, "free": 10_240, "mmapped": 2_048},
        "pymalloc": {"arenas": 120, "in_blocks": 102_400, "available": 4_096},
    }


def test_status_fields_are_read_as_numbers() -> None:
    assert status_fields(STATUS) == {
        "VmRSS": 184320,
        "VmHWM": 230400,
        "RssAnon": 150000,
        "RssFile": 34320,
        "Threads": 12,
    }


def test_a_status_without_the_fields_says_which_are_missing() -> None:
    with pytest.raises(ValueError, match="RssAnon, RssFile"):
        status_fields("Name:\tkthreadd\nVmRSS:\t 1 kB\nVmHWM:\t 1 kB\nThreads:\t1\n")


def test_objects_are_counted_by_qualified_type() -> None:
    counts = type_counts([{}, {}, [], MemoryPoint(1, 0.0, {})])
    assert counts == {
        "builtins.dict": 2,
        "builtins.list": 1,
        "bench.memory.report.MemoryPoint": 1,
    }


def test_the_types_that_grew_most_come_first_and_shrunk_ones_not_at_all() -> None:
    before = {"dict": 100, "list": 50, "Row": 10}
    after = {"dict": 130, "list": 40, "Row": 5010, "Coroutine": 7}
    assert grown_types(before, after, top=3) == [("Row", 5000), ("dict", 30), ("Coroutine", 7)]


DEBUGMALLOCSTATS = """Small block threshold = 512, in 32 size classes.
# arenas allocated total           =                    3
# arenas allocated current         =                  250
250 arenas * 1048576 bytes/arena     =          262,144,000
# bytes in allocated blocks        =          209,715,200
# bytes in available blocks        =            1,048,576
Total                              =          262,144,000
"""


def test_pythons_arenas_and_their_blocks_are_read_from_debugmallocstats() -> None:
    assert pymalloc_stats(DEBUGMALLOCSTATS) == {
        "arenas": 250,
        "in_blocks": 204_800,
        "available": 1_024,
    }
    with pytest.raises(ValueError, match="pymalloc"):
        pymalloc_stats("Total = 3")


def test_a_snapshot_of_this_process_reads_every_part() -> None:
    found = snapshot()
    assert found["status_kib"]["VmRSS"] > 0
    assert found["allocated_blocks"] > 0 and found["gc_objects"] > 0
    assert found["types"]["builtins.dict"] > 0
    assert found["pymalloc"]["arenas"] > 0 and found["pymalloc"]["in_blocks"] > 0
    heap = malloc_kib()  # glibc 2.33+ here; None elsewhere, which the report shows as n/a
    assert heap is None or heap["in_use"] > 0


def test_the_table_has_a_column_per_checkpoint_and_each_round_in_mib() -> None:
    rounds = [
        {
            "before": shot(200 * 1024, {}),
            "peak_kib": 260 * 1024,
            "seconds": 3.25,
            "counts": {"added": 1, "removed": 2, "updated": 0},
            "after": shot(240 * 1024, {}),
        }
    ]
    points = [
        MemoryPoint(500, 180.0, shot(200 * 1024, {"dict": 10}), rounds),
        MemoryPoint(1500, 360.0, shot(210 * 1024, {"dict": 15, "Row": 1000})),
    ]
    points[1].trimmed = shot(190 * 1024, {})
    lines = table(points)
    assert lines[0] == "| measure | 500 waiting | 1,500 waiting |"
    text = "\n".join(lines)
    assert "| RSS, every run waiting (MiB) | 200 | 210 |" in text
    assert (
        "| reconcile round 1: RSS before / peak during / after (MiB) | 200 / 260 / 240 | - |"
        in text
    )
    assert "| reconcile round 1: seconds; added, removed, updated | 3.2; 1, 2, 0 | - |" in text
    glibc = "glibc malloc: from the system / in use / freed, kept / mmapped (MiB)"
    assert f"| {glibc} | 70 / 50 / 10 / 2 | 70 / 50 / 10 / 2 |" in text
    assert "| Python arenas: MiB / in blocks (MiB) | 120 / 100 | 120 / 100 |" in text
    assert "| after malloc_trim: RSS (MiB); glibc (MiB) | - | 190; 70 / 50 / 10 / 2 |" in text
    assert grown(points) == ["- `Row`: +1,000", "- `dict`: +5"]
