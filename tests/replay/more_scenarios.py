"""The scenarios recorded for issue 12 ("Replay, for users"), one history each.

They run like those of record_histories.py (real workflows and activities, a seeded
SQLite store, scripted models, signed decisions through `decide`), but on the Temporal
dev server that `signoff dev` runs, except two that must wait: an expiry (24 h) and a
model that is down through every retry (a minute of backoff) run on the time-skipping
server.
Each scenario also gets the store, for the records it adds before it starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from temporalio.client import Client, WorkflowHandle
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from activities.model_turn import ModelTurns
from activities.store import add_ticket
from activities.store.started_runs import record_started_run
from signoff.config.settings import Settings
from signoff.wiring.worker import build_worker
from tests.replay.record_histories import agent_request, decision, wait_for_pending
from tests.rules import make_rule
from tests.triage_requests import recorded_triage
from tests.workflow.approvals import TEST_SIGNER
from workflows.agent_run import AgentRun
from workflows.contracts import ModelRef, ModelReply, ModelRequest, RunRequest, run_id_for
from workflows.triage import TriageTicket

ANSWER_ONLY = ModelRef(provider="scripted", model_id="answer-only")
PARTIAL_REFUND = ModelRef(provider="scripted", model_id="partial-refund")
OVER_PAID = ModelRef(provider="scripted", model_id="refund-over-paid")
# A ticket that is neither tracking nor a refund, for triage's third route.
OTHER_TICKET = "Hello, could you change the e-mail address of my account to kim@example.org? Kim"

Handle = WorkflowHandle[Any, Any]


async def start(client: Client, queue: str, request: RunRequest) -> Handle:
    run_id = run_id_for(request.tenant_id, request.request_id)
    return await client.start_workflow(AgentRun.run, request, id=run_id, task_queue=queue)


async def finished(handle: Handle) -> Handle:
    await handle.result()
    return handle


async def answer_without_tools(client: Client, queue: str, now: datetime, _: Engine) -> Handle:
    return await finished(await start(client, queue, agent_request("T-4512", now, ANSWER_ONLY)))


async def order_not_found(client: Client, queue: str, now: datetime, _: Engine) -> Handle:
    """T-9999 is linked to no order: the agent says so instead of inventing one."""
    return await finished(await start(client, queue, agent_request("T-9999", now)))


async def refund_expired(client: Client, queue: str, now: datetime, _: Engine) -> Handle:
    """Nobody decides: the request expires after its 24 h, and nothing is refunded."""
    handle = await start(client, queue, agent_request("T-1042", now))
    await wait_for_pending(handle)
    return await finished(handle)


async def wait_for_other_pending(handle: Handle, old: str) -> str:
    for _ in range(400):
        state = await handle.query(AgentRun.state)
        for action in state.pending_actions:
            if action.action_hash != old:
                return str(action.action_hash)
        await asyncio.sleep(0.05)
    raise RuntimeError("no new pending action appeared")


async def voided_then_approved(client: Client, queue: str, now: datetime, _: Engine) -> Handle:
    """Two runs ask 30.00 on one order; the second is refunded first, so the first's
    approval is void (the order changed), its new version is approved and refunded."""
    first = await start(client, queue, agent_request("T-1042", now, PARTIAL_REFUND))
    first_digest = await wait_for_pending(first)
    second = await start(client, queue, agent_request("T-1042", now, PARTIAL_REFUND))
    second_digest = await wait_for_pending(second)
    await second.execute_update(
        AgentRun.decide, decision(second, second_digest, "bob", "approve", "goodwill")
    )
    await second.result()
    await first.execute_update(
        AgentRun.decide, decision(first, first_digest, "alice", "approve", "goodwill")
    )
    renewed = await wait_for_other_pending(first, first_digest)
    await first.execute_update(
        AgentRun.decide, decision(first, renewed, "alice", "approve", "still goodwill")
    )
    return await finished(first)


async def policy_denial(client: Client, queue: str, now: datetime, _: Engine) -> Handle:
    """500.00 asked on an order of 89.90: denied by policy, nobody asked."""
    return await finished(await start(client, queue, agent_request("T-1042", now, OVER_PAID)))


async def step_budget_exhausted(client: Client, queue: str, now: datetime, _: Engine) -> Handle:
    """Two model turns allowed; the demo agent needs three to answer."""
    request = agent_request("T-4512", now).model_copy(update={"step_budget": 2})
    return await finished(await start(client, queue, request))


async def cancelled_waiting(client: Client, queue: str, now: datetime, _: Engine) -> Handle:
    handle = await start(client, queue, agent_request("T-1042", now))
    await wait_for_pending(handle)
    await handle.cancel()
    return await finished(handle)


async def model_error(client: Client, queue: str, now: datetime, _: Engine) -> Handle:
    """The model cannot be reached through all six attempts: the run fails, model_error."""
    return await finished(await start(client, queue, agent_request("T-4512", now)))


async def triage_other(client: Client, queue: str, now: datetime, engine: Engine) -> Handle:
    """A ticket that is neither tracking nor a refund: handed to a person."""
    ticket_id = add_ticket(engine, "demo", None, OTHER_TICKET, "Kim Berg")
    request = recorded_triage(ticket_id, f"other{int(now.timestamp())}", engine)
    handle = await client.start_workflow(
        TriageTicket.run, request, id=f"triage-{request.request_id}", task_queue=queue
    )
    return await finished(handle)


async def standing_rule(client: Client, queue: str, now: datetime, engine: Engine) -> Handle:
    """An administrator's standing rule covers the refund: no reviewer is asked, and the
    rule's grant travels to the ledger, which spends one of its uses (for a run the
    service recorded, as the run factory does: activities/rule_callers.py)."""
    make_rule(engine, TEST_SIGNER, max_amount="100.00", max_uses=5)
    request = agent_request("T-1042", now)
    record_started_run(engine, request)
    return await finished(await start(client, queue, request))


class ModelThatIsDown:
    """Fails as the Anthropic adapter does when it cannot connect: a retryable error."""

    async def complete(self, request: ModelRequest) -> ModelReply:
        raise ApplicationError("could not connect to the Anthropic API", type="ModelUnavailable")


def worker_with_model_down(client: Client, settings: Settings, engine: Engine) -> Worker:
    """`signoff worker`'s worker (signoff/wiring/worker.py), with a model that is down."""
    models = ModelTurns({"scripted": ModelThatIsDown})
    return build_worker(client, settings, engine, models=models)


Scenario = Callable[[Client, str, datetime, Engine], Awaitable[Handle]]
SCENARIOS: dict[str, Scenario] = {
    "agent_run_answer_without_tools": answer_without_tools,
    "agent_run_order_not_found": order_not_found,
    "agent_run_refund_expired": refund_expired,
    "agent_run_voided_then_approved": voided_then_approved,
    "agent_run_policy_denial": policy_denial,
    "agent_run_step_budget_exhausted": step_budget_exhausted,
    "agent_run_cancelled_waiting": cancelled_waiting,
    "agent_run_model_error_after_retries": model_error,
    "triage_other": triage_other,
    "agent_run_standing_rule": standing_rule,
}
WORKERS: dict[str, Callable[[Client, Settings, Engine], Worker]] = {
    "agent_run_model_error_after_retries": worker_with_model_down,
}
# An expiry of 24 h and a minute of retry backoff: the time-skipping server skips them.
TIME_SKIPPING = {
    "agent_run_refund_expired",
    "agent_run_model_error_after_retries",
    # Nothing to wait for: the time-skipping server only starts faster.
    "agent_run_standing_rule",
}
