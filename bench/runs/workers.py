"""One worker process of `python -m bench.runs`: signoff's, or the raw baseline's.

Each runs alone in its process so that the benchmark can read its CPU time and peak RSS
from /proc. Both register the same activities, built on the same store and settings,
with the same capacity options (`capacity`: slots, cache, pollers); they differ only in
the workflow they run, and in signoff's metrics interceptor, which is part of what its
engine does. The settings come from the environment (`SIGNOFF_*`), the task queue from
the command line. It prints READY once polling, and stops on SIGTERM.

    python -m bench.runs.workers {signoff,raw} TASK_QUEUE
"""

from __future__ import annotations

import asyncio
import signal
import sys
from datetime import timedelta

from temporalio.worker import Worker

from activities.decision_verifier import DecisionVerifier
from activities.decisions import DecisionActivities
from activities.model_turn import build_model_turns
from activities.refunds import RefundActivities
from activities.run_limits import RunLimitsActivity
from activities.store import make_engine
from activities.tool_gateway import ToolGateway
from signoff.config.decision_keys import load_verification_keys
from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.wiring.worker import build_worker, capacity
from workflows.sandbox import workflow_runner

READY = "READY"


def raw_worker(client: object, settings: Settings) -> Worker:
    """The baseline's worker: signoff's activities, the hand-written workflow."""
    from bench.runs.raw_refund import RawRefund

    engine = make_engine(settings.resolved_database_url)
    models = build_model_turns(settings)
    gateway = ToolGateway(engine)
    keys = load_verification_keys(settings)  # public keys only, as signoff's worker
    refunds = RefundActivities(engine, keys)
    verifier = DecisionVerifier(
        engine,
        keys,
        timedelta(seconds=settings.decision_max_age_seconds),
    )
    return Worker(
        client,  # type: ignore[arg-type]
        task_queue=settings.task_queue,
        workflows=[RawRefund],
        # The same sandbox as signoff's worker: its own module passed through as well.
        workflow_runner=workflow_runner("bench.runs.raw_refund"),
        activities=[
            models.model_turn,
            gateway.run_tool,
            refunds.read_action_state,
            refunds.execute_refund,
            verifier.verify_decision,
            refunds.hold_pending_refund,
            refunds.release_pending_refund,
            DecisionActivities(engine, keys).record_decision,
            RunLimitsActivity(settings).run_limits,
        ],
        # The same capacity as signoff's worker: slots, cache and pollers are tuning,
        # not engine, and must not differ between the two sides.
        **capacity(settings),
    )


async def serve(kind: str, task_queue: str) -> None:
    settings = Settings(task_queue=task_queue)
    client = await connect(settings)
    worker = build_worker(client, settings) if kind == "signoff" else raw_worker(client, settings)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with worker:
        print(READY, flush=True)  # noqa: T201
        await stop.wait()


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] not in ("signoff", "raw"):
        raise SystemExit("usage: python -m bench.runs.workers {signoff,raw} TASK_QUEUE")
    asyncio.run(serve(sys.argv[1], sys.argv[2]))


if __name__ == "__main__":
    main()
