"""Records the histories tests/replay replays: `python -m tests.replay.record_histories`.

Each scenario runs the real workflows and activities (seeded SQLite store, scripted
models, decisions through the `decide` update) on the time-skipping test server (those
of more_scenarios.py mostly on the dev server), then writes the history as JSON under
tests/histories/, one file per scenario. Until the first release, a change to workflow
code records the scenarios it changes again (`make record-histories NAME=...`); from
the first release on, a recorded history is a run that exists in someone's cluster, and
a change that breaks it needs a versioning gate instead (docs: development).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import sys
import tempfile
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from temporalio import activity
from temporalio.client import Client, WorkflowHandle
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.refunds import RefundActivities
from activities.store import make_engine, seed_demo
from activities.store.started_runs import record_started_run
from signoff.config.data_converter import data_converter
from signoff.config.profiles import (
    BUILTIN_PROFILES,
    STRICT_PROFILES,
    LoadedProfiles,
    load_profile_file,
)
from signoff.config.settings import Settings
from signoff.service.handles import Store
from signoff.service.run_requests import run_offer
from signoff.wiring.search_attributes import ensure_search_attributes
from signoff.wiring.worker import build_worker
from tests.triage_requests import recorded_triage
from tests.workflow.approvals import TEST_KEYS, install_test_keys, signed
from workflows.action_edits import edited_action
from workflows.actions import EXECUTE_REFUND_ACTIVITY, Decision, RefundCommand, RefundResult
from workflows.agent_run import AgentRun
from workflows.contracts import ModelRef, RunRequest, run_id_for
from workflows.triage import TriageTicket

HISTORIES = Path(__file__).parent.parent / "histories"
ID_SEPARATOR = "__"
DEMO = ModelRef(provider="scripted", model_id="demo")
TRIAGE = ModelRef(provider="scripted", model_id="triage")
INJECTION = ModelRef(provider="scripted", model_id="injection")
REPLY = ModelRef(provider="scripted", model_id="reply")


def agent_request(
    ticket_id: str,
    now: datetime,
    model: ModelRef = DEMO,
    on: tuple[LoadedProfiles, Engine] | None = None,
) -> RunRequest:
    """A run of the built-in agent (no profile), or of a profile file's default agent as
    the run factory records it, its prompt catalog written to the recording's store."""
    offer = {} if on is None else run_offer(Store(on[1]), on[0], "demo").fields()
    request = RunRequest(
        **offer,
        tenant_id="demo",
        actor_id="ops",
        request_id=uuid.uuid4().hex[:12],
        trace_id=uuid.uuid4().hex,
        goal="Answer the customer's support ticket.",
        ticket_id=ticket_id,
        policy_version="recorded",
        model=model,
        deadline=now + timedelta(hours=48),
    )
    if on is not None:
        # As the run factory records it: an automatic effect asks the store for it.
        record_started_run(on[1], request)
    return request


async def start_agent(
    client: Client, queue: str, ticket_id: str, now: datetime, model: ModelRef = DEMO
) -> WorkflowHandle[Any, Any]:
    request = agent_request(ticket_id, now, model)
    return await client.start_workflow(
        AgentRun.run, request, id=run_id_for("demo", request.request_id), task_queue=queue
    )


async def wait_for_pending(handle: WorkflowHandle[Any, Any], count: int = 1) -> str:
    for _ in range(400):
        state = await handle.query(AgentRun.state)
        if len(state.pending_actions) >= count:
            return str(state.pending_actions[0].action_hash)
        await asyncio.sleep(0.05)
    raise RuntimeError("no pending action appeared")


def decision(
    handle: WorkflowHandle[Any, Any], digest: str, reviewer: str, verdict: str, reason: str = ""
) -> Decision:
    """Signed as the decision service signs; the recording worker holds its public key."""
    unsigned = Decision.model_validate(
        {
            "action_hash": digest,
            "verdict": verdict,
            "reviewer_id": reviewer,
            "reviewer_roles": ["refund_approver"],
            "tenant_id": "demo",
            "reason": reason,
            # A rejection names its category; these scenarios' reviewers say `other`.
            "category": "other" if verdict == "reject" else None,
        }
    )
    return signed(unsigned, handle.id)


async def reply_confirmed(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    """The strict profile: the reply to the customer waits, is confirmed, is sent once."""
    request = agent_request("T-1042", now, REPLY, (load_profile_file(STRICT_PROFILES), engine))
    handle = await client.start_workflow(
        AgentRun.run, request, id=run_id_for("demo", request.request_id), task_queue=queue
    )
    digest = await wait_for_pending(handle)
    await handle.execute_update(AgentRun.decide, decision(handle, digest, "alice", "approve"))
    await handle.result()
    return handle


async def reply_auto(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    """The built-in profile: the reply is sent at once, without a reviewer."""
    request = agent_request("T-1042", now, REPLY, (load_profile_file(BUILTIN_PROFILES), engine))
    handle = await client.start_workflow(
        AgentRun.run, request, id=run_id_for("demo", request.request_id), task_queue=queue
    )
    await handle.result()
    return handle


def strict_worker(client: Client, settings: Settings, engine: Engine) -> Worker:
    """build_worker's worker on the shipped strict profile."""
    return build_worker(client, settings.model_copy(update={"profiles": STRICT_PROFILES}), engine)


async def order_status(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    handle = await start_agent(client, queue, "T-4512", now)
    await handle.result()
    return handle


async def refund_approved(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    handle = await start_agent(client, queue, "T-1042", now)
    digest = await wait_for_pending(handle)
    await handle.execute_update(AgentRun.decide, decision(handle, digest, "alice", "approve", "ok"))
    await handle.result()
    return handle


async def refund_rejected(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    handle = await start_agent(client, queue, "T-1042", now)
    digest = await wait_for_pending(handle)
    await handle.execute_update(
        AgentRun.decide, decision(handle, digest, "bob", "reject", "no photo of the damage")
    )
    await handle.result()
    return handle


async def refund_responded(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    """A reviewer answers the agent instead of deciding: the refund does not happen, and
    the model's next turn reads the reviewer's instruction."""
    handle = await start_agent(client, queue, "T-1042", now)
    digest = await wait_for_pending(handle)
    await handle.execute_update(
        AgentRun.decide,
        decision(handle, digest, "bob", "respond", "check the carrier's tracking first"),
    )
    await handle.result()
    return handle


async def refund_edited(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    """The built-in profile lets a reviewer lower the refund: alice approves 50.00 of the
    89.90 proposed, on the edited action's own hash, naming the original."""
    request = agent_request("T-1042", now, DEMO, (load_profile_file(BUILTIN_PROFILES), engine))
    handle = await client.start_workflow(
        AgentRun.run, request, id=run_id_for("demo", request.request_id), task_queue=queue
    )
    await wait_for_pending(handle)
    state = await handle.query(AgentRun.state)
    original = state.pending_actions[0]
    edits = {"amount": "50.00"}
    edited = edited_action(original, edits, editor="alice", run_id=handle.id)
    unsigned = Decision.model_validate(
        {
            "action_hash": edited.action_hash,
            "original_hash": original.action_hash,
            "edits": edits,
            "verdict": "approve",
            "reviewer_id": "alice",
            "reviewer_roles": ["refund_approver"],
            "tenant_id": "demo",
            "reason": "goodwill",
        }
    )
    await handle.execute_update(AgentRun.decide, signed(unsigned, handle.id))
    await handle.result()
    return handle


async def refund_fraud(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    """A rejection as suspected fraud ends the run; the model is not asked again."""
    handle = await start_agent(client, queue, "T-1042", now)
    digest = await wait_for_pending(handle)
    rejection = decision(handle, digest, "bob", "reject", "five claims on one card")
    fraud = signed(rejection.model_copy(update={"category": "suspected_fraud"}), handle.id)
    await handle.execute_update(AgentRun.decide, fraud)
    await handle.result()
    return handle


async def four_eyes(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    handle = await start_agent(client, queue, "T-3107", now)
    digest = await wait_for_pending(handle)
    await handle.execute_update(AgentRun.decide, decision(handle, digest, "alice", "approve"))
    await handle.execute_update(AgentRun.decide, decision(handle, digest, "bob", "approve"))
    await handle.result()
    return handle


async def injection_rejected(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    """T-2210's forged note obeyed: two refunds denied by policy, one asked and rejected."""
    handle = await start_agent(client, queue, "T-2210", now, INJECTION)
    digest = await wait_for_pending(handle)
    await handle.execute_update(
        AgentRun.decide, decision(handle, digest, "bob", "reject", "the note is not ours")
    )
    await handle.result()
    return handle


async def triage_tracking(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    request = recorded_triage("T-4512", uuid.uuid4().hex[:12], engine)
    handle = await client.start_workflow(
        TriageTicket.run, request, id=f"triage-{request.request_id}", task_queue=queue
    )
    await handle.result()
    return handle


async def triage_refund(
    client: Client, queue: str, now: datetime, engine: Engine
) -> WorkflowHandle[Any, Any]:
    """A refund ticket: triage starts the agent run the service built for it (the
    built-in profile's agent, its tools, the settings' limits)."""
    request = recorded_triage("T-1042", uuid.uuid4().hex[:12], engine)
    handle = await client.start_workflow(
        TriageTicket.run, request, id=f"triage-{request.request_id}", task_queue=queue
    )
    outcome = await handle.result()
    assert outcome.agent_run_id is not None, outcome
    # The agent run outlives triage; end it here, or it would hold the test server's clock.
    agent = client.get_workflow_handle_for(AgentRun.run, outcome.agent_run_id)
    await wait_for_pending(agent)
    await agent.cancel()
    await agent.result()
    return handle


class LedgerThatNeverAnswers(RefundActivities):
    """Commits, then fails every attempt like a dropped connection: an unknown outcome."""

    @activity.defn(name=EXECUTE_REFUND_ACTIVITY)
    async def execute_refund(self, command: RefundCommand) -> RefundResult:
        await super().execute_refund(command)
        raise ConnectionError("server closed the connection unexpectedly")


def worker_with_failing_ledger(client: Client, settings: Settings, engine: Engine) -> Worker:
    """build_worker's worker, with a refund activity whose outcome is never known."""
    return build_worker(client, settings, engine, refunds=LedgerThatNeverAnswers(engine, TEST_KEYS))


def worker_on_localstripe(client: Client, settings: Settings, engine: Engine) -> Worker:
    """build_worker's worker, the demo tenant refunding through a localstripe started for
    the recording (stopped when the recorder exits), its order C-1042 paid 49.99 there."""
    from activities.payments.registry import PaymentConnectors
    from tests.payments.conftest import link_paid_order, stripe_settings
    from tests.payments.localstripe import running_localstripe

    stack = contextlib.ExitStack()
    server = stack.enter_context(running_localstripe())
    atexit.register(stack.close)
    on_stripe = stripe_settings(
        settings.home,
        server,
        task_queue=settings.task_queue,
        database_url=settings.resolved_database_url,
    )
    link_paid_order(engine, PaymentConnectors(on_stripe), server, 4999)
    return build_worker(client, on_stripe, engine)


Scenario = Callable[[Client, str, datetime, Engine], Awaitable[WorkflowHandle[Any, Any]]]
SCENARIOS: dict[str, Scenario] = {
    "agent_run_order_status": order_status,
    "agent_run_refund_approved": refund_approved,
    "agent_run_refund_rejected": refund_rejected,
    "agent_run_refund_responded": refund_responded,
    "agent_run_four_eyes": four_eyes,
    "agent_run_refund_edited": refund_edited,
    "agent_run_refund_fraud": refund_fraud,
    "agent_run_injection": injection_rejected,
    "triage_tracking": triage_tracking,
    "triage_refund": triage_refund,
    # A ledger that never answered: the outcome is unknown (its worker below).
    "agent_run_refund_outcome_unknown": refund_approved,
    # Any irreversible tool but the refund: the reply to the customer, gated and not.
    "agent_run_reply_confirmed": reply_confirmed,
    "agent_run_reply_auto": reply_auto,
    # The refund made through Stripe (localstripe): the workflow cannot tell the difference.
    "agent_run_refund_stripe": refund_approved,
}
# Scenarios whose worker differs from `signoff worker`'s.
WORKERS: dict[str, Callable[[Client, Settings, Engine], Worker]] = {
    "agent_run_refund_outcome_unknown": worker_with_failing_ledger,
    "agent_run_reply_confirmed": strict_worker,
    "agent_run_refund_stripe": worker_on_localstripe,
}


async def record(names: list[str]) -> None:
    """Records each named scenario: those of issue 12 (more_scenarios.py) on the dev
    server unless they need time to skip, the older ones on the time-skipping server."""
    from tests.conftest import venv_binary
    from tests.replay import customer_scenarios as customers  # ask_customer
    from tests.replay import more_scenarios as more  # it imports this module's helpers
    from tests.replay import policy_scenarios as policies  # N of M, escalation
    from tests.replay import tool_scenarios as tools  # a team's own Python tool

    for extra in (policies, tools, customers):
        SCENARIOS.update(extra.SCENARIOS), WORKERS.update(extra.WORKERS)

    unknown = [name for name in names if name not in SCENARIOS and name not in more.SCENARIOS]
    if unknown:
        known = ", ".join(sorted([*SCENARIOS, *more.SCENARIOS]))
        raise SystemExit(f"Unknown scenario(s): {', '.join(unknown)}. Known: {known}.")
    skipping = [name for name in names if name not in more.SCENARIOS or name in more.TIME_SKIPPING]
    on_dev_server = [name for name in names if name not in skipping]
    # A time-skipping server of its own for each: a run left with a timer (a deadline the
    # run outlived) lets the server skip far ahead, and the next scenario's decisions,
    # signed on this machine's clock, would then read as years old.
    for name in skipping:
        env = await WorkflowEnvironment.start_time_skipping(
            data_converter=data_converter,
            test_server_existing_path=venv_binary("temporal-test-server"),
        )
        await record_on(env, [name])
    if on_dev_server:
        env = await WorkflowEnvironment.start_local(
            data_converter=data_converter,
            dev_server_existing_path=venv_binary("temporal"),
        )
        await record_on(env, on_dev_server)


async def record_on(env: WorkflowEnvironment, names: list[str]) -> None:
    from tests.replay import more_scenarios as more

    try:
        await ensure_search_attributes(env.client, "default")
        for name in names:
            with tempfile.TemporaryDirectory() as home:
                settings = Settings(
                    home=Path(home),
                    task_queue=f"record-{uuid.uuid4().hex}",
                )
                install_test_keys(settings)
                engine = make_engine(settings.resolved_database_url)
                seed_demo(engine)
                make_worker = WORKERS.get(name) or more.WORKERS.get(name, build_worker)
                # The server's clock: a time-skipping server may be hours ahead of ours.
                now = (await env.get_current_time()).astimezone(UTC)
                async with make_worker(env.client, settings, engine):
                    scenario = more.SCENARIOS.get(name) or SCENARIOS[name]
                    handle = await scenario(env.client, settings.task_queue, now, engine)
                history = await handle.fetch_history()
                # The workflow id is part of the file name: replay needs it (action
                # hashes bind the run id), and the history JSON does not carry it.
                for old in HISTORIES.glob(f"{name}{ID_SEPARATOR}*.json"):
                    old.unlink()
                path = HISTORIES / f"{name}{ID_SEPARATOR}{handle.id}.json"
                path.write_text(history.to_json(), encoding="utf-8")
                engine.dispose()
    finally:
        await env.shutdown()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        # Named, never all by default: a history is recorded again only where a change
        # to the workflow code asks for it.
        raise SystemExit("Name the scenario(s) to record, e.g. agent_run_order_not_found.")
    asyncio.run(record(sys.argv[1:]))
