"""A worker killed by SIGKILL at each phase of a refund run, then a new worker.

For each phase, N runs are brought to that phase at once on one worker, which then dies
by one SIGKILL: from its kill hook (`bench/chaos/worker.py`) once N activities are held
in the phase, or, for runs waiting for approval, from this process. Only then does a
new `signoff worker` start, alone on the task queue; it must finish every run, with
exactly one refund each. What it waits out depends on the phase: the model turn's
heartbeat timeout (30 s), the tool call's or the refund's start-to-close timeout
(60 s, 10 s), and the dead worker's sticky queue.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time

from activities.store.refunds import list_refunds
from bench.chaos.processes import READY_SECONDS, worker_process
from bench.chaos.runs import (
    TENANT,
    Bench,
    Row,
    approve_all,
    finish_refunds,
    pending_hash,
    refund_row,
    retried_attempts,
    retried_text,
    start_runs,
)
from testkit.refund_cases import add_refund_cases

PHASES = {
    "model_turn": "worker SIGKILL during a model turn",
    "tool_call": "worker SIGKILL during a tool call",
    "waiting": "worker SIGKILL while runs wait for approval",
    "before_refund": "worker SIGKILL between the decision and the refund",
    "after_refund": "worker SIGKILL after the refund committed, before its activity completed",
}
# The runs of these phases are approved before the kill; the others after it.
APPROVED_FIRST = ("before_refund", "after_refund")


async def died(worker: subprocess.Popen[bytes], what: str) -> None:
    try:
        code = await asyncio.to_thread(worker.wait, READY_SECONDS)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"the worker never died {what}") from None
    if code != -signal.SIGKILL:
        raise SystemExit(f"the worker ended with {code} {what}, not by SIGKILL")


def committed(bench: Bench, tickets: list[str]) -> int:
    return sum(len(list_refunds(bench.engine, TENANT, t.removeprefix("T-"))) for t in tickets)


async def kill_at(bench: Bench, env: dict[str, str], phase: str, runs: int) -> Row:
    tickets = add_refund_cases(bench.settings.resolved_database_url, TENANT, runs)
    what = f"{PHASES[phase]} ({runs} runs caught in it)"
    if phase == "waiting":
        with worker_process(env, f"{phase}-first") as first:
            handles = await start_runs(bench, tickets)
            await asyncio.gather(*(pending_hash(handle) for handle in handles))
            first.send_signal(signal.SIGKILL)
            await died(first, what)
    else:
        with worker_process(env, f"{phase}-first", kill_at=phase, kill_after=runs) as first:
            handles = await start_runs(bench, tickets)
            if phase in APPROVED_FIRST:
                await approve_all(bench, handles)
            await died(first, what)
    injected_at = time.monotonic()
    before = committed(bench, tickets)
    with worker_process(env, f"{phase}-second"):
        finished = await finish_refunds(bench, handles, decide_too=phase not in APPROVED_FIRST)
        retried = await retried_attempts(handles)
    notes = [
        f"{PHASES[phase]}: {before} of {runs} refunds were committed before the kill; "
        f"activity attempts retried after it: {retried_text(retried)}."
    ]
    return refund_row(PHASES[phase], bench, tickets, finished, injected_at, notes)
