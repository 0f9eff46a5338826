"""The run's deadline: a durable timer that cancels the loop when it fires.

Design note. The loop runs as a task under a timer of Temporal's (`call_later` in the
workflow's event loop), which ends the run even while an activity hangs: the loop is
cancelled, and `run` turns that into TimeoutError, as `asyncio.wait_for` does. Unlike
`wait_for`, the timer is not cancelled when the loop ends first: the run is ending, the
server drops a timer its run outlived, and a cancel would only be one more history event.

The time a run waits for its customer is not the agent's: a timer firing during a wait
is put off (`customer_wait.py`). The worker's limits come with the first model turn
(`run_limits.py`), after the timer was set from the request's deadline: when they bring
the deadline nearer, `shorten_to` sets one more timer, for the nearer one; the first
then fires on a run that has ended, or one whose customer waits moved it on.

This is workflow code: no I/O.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from temporalio import workflow

from workflows.customer_wait import CustomerWait
from workflows.run_budgets import RunEnded


@dataclass
class RunDeadline:
    customer: CustomerWait
    # The loop the timer cancels, once it runs; and whether the timer did.
    _loop: asyncio.Task[str] | None = None
    _fired: bool = False

    async def run(self, loop: Coroutine[Any, Any, str], seconds: float) -> str:
        """The loop's result, or TimeoutError when the timer fired first."""
        self._loop = asyncio.create_task(loop)
        asyncio.get_running_loop().call_later(seconds, self._fire)
        try:
            return await self._loop
        except asyncio.CancelledError:
            if self._fired:
                raise TimeoutError from None
            raise

    def shorten_to(self, deadline: datetime, before: datetime) -> None:
        """The timer also fires at `deadline` when it is nearer than `before`, the
        deadline it was set for; RunEnded when it has passed already."""
        if deadline >= before:
            return
        left = (deadline - workflow.now()).total_seconds()
        if left <= 0:
            raise RunEnded("failed", "deadline_exceeded", "The deadline had passed.")
        asyncio.get_running_loop().call_later(left, self._fire)

    def _fire(self) -> None:
        if self.customer.put_off(self._fire):
            return  # time spent waiting for the customer is not the agent's
        if self._loop is not None and not self._loop.done():
            self._fired = True
            self._loop.cancel()
