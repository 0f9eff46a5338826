"""`signoff worker` with a kill hook: it dies by SIGKILL at a chosen phase of its runs.

The environment chooses the phase and how many runs must be caught in it first:

- `SIGNOFF_CHAOS_KILL_AT`: `model_turn` (inside the model call, while the activity
  heartbeats), `tool_call` (inside the tool activity, before the store is read),
  `before_refund` (the decision taken, the refund activity started, nothing written),
  or `after_refund` (the ledger row committed, the activity not yet completed);
- `SIGNOFF_CHAOS_KILL_AFTER`: N. Each activity that reaches the phase is held there;
  the N-th one kills the process. N runs are caught at once, and one kill ends them
  all, as a machine that loses power does: Temporal hears nothing from this worker
  again, and each held activity is retried by the next worker once its timeout runs out.

Everything else is the real worker (`signoff.wiring.worker.run_worker`): the same
workflows, activities, settings and heartbeat file. Started by `python -m bench.chaos` as
`python -m bench.chaos.worker`.
"""

from __future__ import annotations

import asyncio
import os
import signal

from temporalio import activity

import signoff.wiring.worker as worker_assembly
from activities.model_turn import ModelTurns
from activities.models.base import ModelAdapter
from activities.models.scripted import SCRIPTS_DIR, ScriptedModel
from activities.refunds import RefundActivities
from activities.tool_gateway import ToolGateway
from signoff.config.settings import Settings
from signoff.config.telemetry import worker_runtime
from signoff.config.temporal_client import connect
from workflows.actions import EXECUTE_REFUND_ACTIVITY, RefundCommand, RefundResult
from workflows.contracts import (
    RUN_TOOL_ACTIVITY,
    ModelReply,
    ModelRequest,
    ToolCallInput,
    ToolResult,
)

PHASES = ("model_turn", "tool_call", "before_refund", "after_refund")


class Tripwire:
    """Holds whoever reaches it; the `count`-th arrival kills the process."""

    def __init__(self, phase: str, count: int) -> None:
        self.phase, self.count, self.held = phase, count, 0

    async def reached(self, phase: str) -> None:
        if phase != self.phase:
            return
        self.held += 1
        if self.held >= self.count:
            os.kill(os.getpid(), signal.SIGKILL)
        await asyncio.Event().wait()  # held until the kill


def tripwire_from_environment() -> Tripwire:
    phase = os.environ.get("SIGNOFF_CHAOS_KILL_AT", "")
    count = os.environ.get("SIGNOFF_CHAOS_KILL_AFTER", "")
    if phase not in PHASES or not count.isdigit() or int(count) < 1:
        raise SystemExit(
            f"SIGNOFF_CHAOS_KILL_AT must be one of {', '.join(PHASES)} (got {phase!r}) and "
            f"SIGNOFF_CHAOS_KILL_AFTER a count of 1 or more (got {count!r})."
        )
    return Tripwire(phase, int(count))


TRIPWIRE = tripwire_from_environment() if __name__ == "__main__" else Tripwire("", 1)


class HeldModel:
    """The scripted model, but the answer waits at the tripwire: a model call in flight."""

    def __init__(self, model: ModelAdapter) -> None:
        self.model = model

    async def complete(self, request: ModelRequest) -> ModelReply:
        await TRIPWIRE.reached("model_turn")
        return await self.model.complete(request)


class HookedGateway(ToolGateway):
    @activity.defn(name=RUN_TOOL_ACTIVITY)
    async def run_tool(self, call: ToolCallInput) -> ToolResult:
        await TRIPWIRE.reached("tool_call")
        return await super().run_tool(call)


class HookedRefunds(RefundActivities):
    @activity.defn(name=EXECUTE_REFUND_ACTIVITY)
    async def execute_refund(self, command: RefundCommand) -> RefundResult:
        await TRIPWIRE.reached("before_refund")
        result = await super().execute_refund(command)
        await TRIPWIRE.reached("after_refund")  # the ledger row is committed
        return result


def hooked_model_turns(settings: Settings) -> ModelTurns:
    """Scripted runs only: the chaos runs use the demo script."""
    scripts = settings.scripts_dir or SCRIPTS_DIR
    return ModelTurns({"scripted": lambda: HeldModel(ScriptedModel(scripts))})


async def main() -> None:
    # The worker assembly looks these names up when it builds the worker.
    vars(worker_assembly).update(
        ToolGateway=HookedGateway,
        RefundActivities=HookedRefunds,
        build_model_turns=hooked_model_turns,
    )
    settings = Settings()
    client = await connect(settings, worker_runtime(settings))
    await worker_assembly.run_worker(client, settings, asyncio.Event())


if __name__ == "__main__":
    asyncio.run(main())
