"""A worker process's garbage collection: what it imported is frozen, old garbage goes soon.

The SDK drops a workflow run it evicts (every run, once it closes) as one reference
cycle: the run's instance, its sandbox, its tasks and every contract it held. Only a
collection of the oldest generation frees a cycle that lived long enough to reach it,
and CPython runs one after ten collections of the middle generation, and only once the
objects promoted since the last one are a quarter of those it kept: some 116,000 after
a worker's imports. In 200 refunds at concurrency 50 it ran once, 90 evicted runs (about
6 MiB) waited for it at the end, and the worker's peak RSS was 7.5 MiB higher (mean of
four) than with `settle_heap` (docs/benchmarks/runs.md, "Worker memory: imports").

`settle_heap` moves what the process holds at start, its imports above all, into the
permanent generation, which no collection walks again; a full collection then walks
only what came after, and it runs at every collection of the middle generation.
"""

from __future__ import annotations

import gc

# The oldest generation is collected at every collection of the middle one (CPython: 10).
FULL_COLLECTION_EVERY = 1


def settle_heap() -> None:
    """Freeze what the process holds now and collect the oldest generation often. Once
    per process, before the worker starts (`signoff worker`, and every side of
    bench/runs/workers.py); the objects built after stay collectable."""
    gc.collect()  # no garbage is frozen
    gc.freeze()
    # A full collection waits for the objects promoted since the last one to reach a
    # quarter of those it counted then; counted again now, without the frozen ones.
    gc.collect()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
