"""A worker's old garbage is collected soon (signoff/wiring/worker_heap.py).

The SDK drops each evicted run as one reference cycle; a cycle that lived through a
middle collection waits for a full one. Checked in a fresh interpreter (the collector's
settings are the process's), which imports the store's ORM as a worker does, makes such
a cycle and then allocates as a worker's runs do: with `settle_heap` the cycle is freed
within two middle collections; with CPython's own settings, the same allocations leave
it in memory, which shows that the check can fail.
"""

from __future__ import annotations

import json
import subprocess
import sys

# Middle collections' worth of allocations the settled worker gets to free the cycle.
MIDDLE_COLLECTIONS = 2

EVICTED_RUN = f"""
import gc, json, sys, weakref
import sqlalchemy.orm, temporalio.worker  # what every worker imports: what a full collection weighs

if sys.argv[1] == "settled":
    from signoff.wiring.worker_heap import settle_heap
    settle_heap()
else:
    gc.collect()

class Run:
    pass

freed = []
run = Run()
run.itself = run  # an evicted run: a cycle
weakref.finalize(run, freed.append, True)
gc.collect(1)  # it outlived a middle collection: it is in the oldest generation now
del run
young, middle, _ = gc.get_threshold()
kept = []  # objects that stay, as a running worker's do, so the collections come
for _ in range(young * middle * {MIDDLE_COLLECTIONS}):
    kept.append([])
    if freed:
        break
print(json.dumps({{"freed": bool(freed), "frozen": gc.get_freeze_count() > 0}}))
"""


def evicted_run(mode: str) -> dict[str, bool]:
    ran = subprocess.run(
        [sys.executable, "-c", EVICTED_RUN, mode], check=True, capture_output=True, text=True
    )
    answer: dict[str, bool] = json.loads(ran.stdout)
    return answer


def test_a_settled_worker_frees_an_old_cycle_within_two_middle_collections() -> None:
    assert evicted_run("settled") == {"freed": True, "frozen": True}


def test_without_settling_the_same_allocations_leave_the_cycle_in_memory() -> None:
    assert evicted_run("default") == {"freed": False, "frozen": False}
