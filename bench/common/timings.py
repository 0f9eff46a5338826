"""How the benchmarks time a call: its median and 95th percentile over many rounds."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def p50_p95(samples: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=100)
    return cuts[49], cuts[94]


def timings(call: Callable[[], object], rounds: int) -> tuple[float, float]:
    """p50 and p95 in ms of `rounds` calls, after one call to warm up (template
    compilation, statement caches, the first queries, the file's pages)."""
    call()
    samples = []
    for _ in range(rounds):
        began = time.perf_counter()
        call()
        samples.append((time.perf_counter() - began) * 1000)
    return p50_p95(samples)
