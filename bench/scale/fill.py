"""Starting waiting runs up to a checkpoint, as a sliding window (`python -m bench.scale`).

All at once, thousands of runs would be in flight together, far more than the worker's
sticky cache holds: every workflow task would replay its run from history and the runs
would creep to their approval (docs/benchmarks/index.md, `make bench-live` at 3,000).
Waves of 50, each once the one before waits, leave the worker idle at the tail of each
wave. A window keeps at most `in_flight` runs started and not yet waiting: a new start
as soon as one run reaches its approval.

"Waiting" is the store's read model (`waiting_actions`, written in the hold's own
transaction): the count of distinct runs of the tenant with a row. Not the run's memo,
nor its `state` query: neither is what the listings read.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine
from temporalio.client import Client
from temporalio.service import RPCError

from bench.scale.waiting_runs import TENANT, refund_request
from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.service.handles import Runs, Store
from signoff.service.runs import start_run
from signoff.service.waiting_listing import read_pending_page

STARTS_AT_ONCE = 50  # one gather of starts: a burst the dev server takes in stride
POLL_SECONDS = 0.5
PROGRESS_SECONDS = 30.0
# No run reaching its approval in this long, with runs in flight: the stack is stuck.
STALL_SECONDS = 600.0
# Approval times of these runs: longer than any bench, so that none expires meanwhile.
SCALE_TTL_MINUTES = (6 * 60, 24 * 60)


class StoppedFilling(Exception):
    """The window stopped short of its checkpoint; the message says where and why."""


@dataclass
class Filling:
    settings: Settings
    engine: Engine
    tickets: list[str]  # one refund case per run, in start order
    in_flight: int
    stop_by: datetime | None
    launcher: subprocess.Popen[bytes]
    started: int = 0


def read_model_runs(engine: Engine) -> int:
    """Distinct runs of the tenant waiting in the read model (a page of one: its counts)."""
    return read_pending_page(Store(engine), TENANT, 1).waiting_runs


async def _start(filling: Filling, client: Client, count: int) -> None:
    tickets = filling.tickets[filling.started : filling.started + count]
    await asyncio.gather(
        *(
            start_run(
                Runs(client),
                refund_request(filling.settings, Store(filling.engine), ticket, SCALE_TTL_MINUTES),
                filling.settings.task_queue,
            )
            for ticket in tickets
        )
    )
    filling.started += len(tickets)


async def fill_to(filling: Filling, target: int, say: Callable[[str], None]) -> None:
    """Starts runs until `target` have started and all of them wait, or raises
    StoppedFilling (the deadline, a stall, the stack gone, a start refused)."""
    client = await connect(filling.settings)
    began = time.monotonic()
    from_count = filling.started
    last_rise, last_waiting, last_said = began, -1, began
    while True:
        waiting = read_model_runs(filling.engine)
        now = time.monotonic()
        if waiting > last_waiting:
            last_rise, last_waiting = now, waiting
        if waiting >= target:
            return
        rate = (waiting - from_count) / max(now - began, 1e-9)
        where = (
            f"{filling.started:,} started, {waiting:,} waiting "
            f"({rate:.2f} runs/s since {from_count:,})"
        )
        if filling.launcher.poll() is not None:
            raise StoppedFilling(f"`signoff dev` exited ({filling.launcher.returncode}); {where}")
        if now - last_rise > STALL_SECONDS:
            raise StoppedFilling(f"no run reached its approval in {STALL_SECONDS:.0f} s; {where}")
        room = min(target - filling.started, filling.in_flight - (filling.started - waiting))
        if filling.stop_by is not None and datetime.now(UTC) >= filling.stop_by:
            if filling.started > waiting:
                room = 0  # let the runs in flight settle first, then say where it stood
            else:
                raise StoppedFilling(f"--stop-by {filling.stop_by:%H:%M} UTC reached; {where}")
        if now - last_said > PROGRESS_SECONDS:
            say(where)
            last_said = now
        if room > 0:
            try:
                await _start(filling, client, min(room, STARTS_AT_ONCE))
            except RPCError as error:
                raise StoppedFilling(f"a start was refused ({error}); {where}") from error
            continue
        await asyncio.sleep(POLL_SECONDS)
