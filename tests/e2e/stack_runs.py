"""Runs a test needs on a dev stack, started and watched in the test's own process.

`signoff run --ticket T` goes through these same service calls; a docs test judges the
commands of its page, not the command that set the scene, and a CLI process per run or
per poll cost a fraction of a second of CPU each, dozens of times a module (the UI
tests do the same: tests/ui/conftest.py).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from decimal import Decimal
from pathlib import Path

from sqlalchemy import Engine, select
from temporalio.client import Client

from activities.store import make_engine
from activities.store.schema import Refund
from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.service.handles import Runs, Store
from signoff.service.pending import run_state
from signoff.service.run_control import start
from signoff.service.run_requests import new_run_request
from signoff.service.waiting_listing import read_pending_page

TENANT = "demo"
PENDING_SECONDS = 30.0
END_SECONDS = 60.0
POLL_SECONDS = 0.2


def stack_settings(env: dict[str, str]) -> Settings:
    """The settings the stack's processes read from `env`."""
    return Settings(
        home=Path(env["SIGNOFF_HOME"]),
        temporal_address=env["SIGNOFF_TEMPORAL_ADDRESS"],
        task_queue=env["SIGNOFF_TASK_QUEUE"],
        ui_secret=None,
    )


def start_runs(env: dict[str, str], tickets: list[str]) -> list[str]:
    """A run per ticket of the demo tenant, started side by side: their run ids."""
    settings = stack_settings(env)
    engine = make_engine(settings.resolved_database_url, migrate=False)
    try:
        requests = [
            new_run_request(
                settings,
                Store(engine),
                tenant_id=TENANT,
                ticket_id=ticket,
                request_id=f"docs-{uuid.uuid4().hex[:12]}",
            )
            for ticket in tickets
        ]
    finally:
        engine.dispose()

    async def started() -> list[str]:
        client = await connect(settings)
        runs = [start(Runs(client), request, settings.task_queue) for request in requests]
        return [run_id for run_id, _ in await asyncio.gather(*runs)]

    return asyncio.run(started())


def start_waiting(env: dict[str, str], tickets: list[str]) -> dict[str, str]:
    """A run per ticket, each once its refund waits for a decision: run id -> hash, in
    the tickets' order."""
    return {run_id: wait_pending(env, run_id) for run_id in start_runs(env, tickets)}


def wait_pending(env: dict[str, str], run_id: str) -> str:
    """The hash of the run's request once the inbox's read model lists it (as `signoff
    pending` reads it) and the run's own state waits on it."""
    settings = stack_settings(env)
    engine = make_engine(settings.resolved_database_url, migrate=False)

    async def waiting() -> str:
        return await _waiting_hash(await connect(settings), engine, run_id)

    try:
        return asyncio.run(waiting())
    finally:
        engine.dispose()


async def _waiting_hash(client: Client, engine: Engine, run_id: str) -> str:
    deadline = time.monotonic() + PENDING_SECONDS
    while True:
        for item in read_pending_page(Store(engine), TENANT, 1000).page.items:
            if item.run_id == run_id:
                state = await run_state(Runs(client), run_id)
                waiting = state.pending_actions if state is not None else []
                if item.action.action_hash in {action.action_hash for action in waiting}:
                    return item.action.action_hash
        assert time.monotonic() < deadline, f"{run_id} never waited for a decision"
        await asyncio.sleep(POLL_SECONDS)


def wait_ended(env: dict[str, str], run_ids: list[str]) -> None:
    async def ended() -> None:
        client = await connect(stack_settings(env))
        handles = [client.get_workflow_handle(run_id) for run_id in run_ids]
        await asyncio.wait_for(asyncio.gather(*(h.result() for h in handles)), END_SECONDS)

    asyncio.run(ended())


def refunded(env: dict[str, str], ticket: str) -> Decimal:
    """What the ledger holds for the order of a refund case's ticket (testkit's
    `T-<order>`)."""
    engine = make_engine(stack_settings(env).resolved_database_url, migrate=False)
    query = select(Refund.amount_minor).where(
        Refund.tenant_id == TENANT, Refund.order_id == ticket.removeprefix("T-")
    )
    try:
        with engine.connect() as connection:
            rows = connection.execute(query).scalars().all()
    finally:
        engine.dispose()
    return Decimal(sum(rows)) / 100
