"""Helpers of the approval-gate tests: the real store activities, the seeded reviewers.

The store side is real (the tool gateway and the refund activities on a seeded SQLite
file); only the model is a fake, or the scripted model. Decisions carry the tenant and
roles the store holds for the reviewer, as the CLI sends them.

Time-skipping note. The test server skips time only while the test awaits a result or
`env.sleep`; polling the `state` query leaves the clock alone, so a run waiting for a
decision stays waiting (its 24 h expiry timer does not fire) until the test moves time.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Engine
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.decision_verifier import DecisionVerifier
from activities.decisions import DecisionActivities
from activities.held_profiles import HeldProfiles
from activities.mcp.activities import McpTools
from activities.model_turn import ModelTurns
from activities.payments.registry import PaymentConnectors
from activities.refunds import RefundActivities
from activities.reviewer_notifier import ReviewerNotifier
from activities.run_limits import LimitsSource, WorkerLimits
from activities.store import get_reviewer, list_refunds
from activities.store.decision_queries import AuditQuery, audit_rows
from activities.store.started_runs import record_started_run
from activities.tool_effects import ToolEffects
from activities.tool_gateway import ToolGateway
from signoff.config.decision_keys import public_entries, rotate
from signoff.config.decision_signatures import DecisionSigner, VerificationKeys
from signoff.config.profiles import BUILTIN_PROFILES, LoadedProfiles, load_profile_file
from signoff.config.settings import Settings
from signoff.service.handles import Store
from signoff.service.run_requests import run_offer
from signoff.wiring.worker_activities import ActivityParts, worker_activities
from tests.workflow.fakes import (
    ModelActivities,
    generous_limits,
    limited,
    new_task_queue,
    run_request,
    start,
    worker,
)
from tests.workflow.run_keys import keyed_limits
from workflows.actions import Decision, DecisionResult, PendingAction, RejectCategory, Verdict
from workflows.agent_run import AgentRun
from workflows.contracts import ModelRequest, RunState, ToolResultBlock
from workflows.decision_proof import canonical_bytes

# The decision service's key in these tests: this module signs with it as the service
# does, and the activities check with its public half only. Fixed, so that a worker in
# another process (tests/e2e/crash_worker.py) knows the same public key.
TEST_SIGNER = DecisionSigner(
    Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"signoff tests decision key").digest())
)
TEST_KEYS: VerificationKeys = TEST_SIGNER.verification_keys()
# Time-skipping moves the run's clock ahead of the wall clock that signs: these tests
# judge freshness with a bound no skip reaches, and the freshness tests set their own.
SKIPPING_MAX_AGE = timedelta(days=1000 * 365)
# A deadline past the default 24 h expiry, as in production (Settings: 48 h).
APPROVAL_RUN_DEADLINE = timedelta(hours=48)
POLL_SECONDS = 0.02
MCP_TIMEOUT_SECONDS = 20.0
WAIT_SECONDS = 15.0
UPDATE_SECONDS = 30.0
ORDERS = ("C-1042", "C-2210", "C-3107")


@asynccontextmanager
async def gate_run(
    env: WorkflowEnvironment,
    model: ModelActivities,
    engine: Engine,
    /,
    limits: LimitsSource = generous_limits,
    refunds: RefundActivities | None = None,
    audit: DecisionActivities | None = None,
    profiles: LoadedProfiles | None = None,
    payments: PaymentConnectors | None = None,
    **overrides: Any,
) -> AsyncIterator[WorkflowHandle[Any, Any]]:
    """Start one run on a fresh task queue, with the real gateway and refund activities
    (`refunds` replaces the refund activities, e.g. by a ledger that fails; `audit` the
    audit's, e.g. by one that waits)."""
    max_age = overrides.pop("decision_max_age", SKIPPING_MAX_AGE)
    effects: ToolEffects | None = overrides.pop("effects", None)
    task_queue = new_task_queue()
    values: dict[str, Any] = {"ticket_id": "T-1042", "deadline": APPROVAL_RUN_DEADLINE}
    if overrides.pop("on_profile", False) and profiles is not None:
        # As the run factory records a profile's agent (test_python_tools.on_profile).
        tenant_id = overrides.get("tenant_id", "demo")
        values.update(run_offer(Store(engine), profiles, tenant_id).fields())
    recorded = overrides.pop("recorded", None)
    values.update(overrides)
    request = run_request(await env.get_current_time(), **values)
    # As the run factory does (service/run_requests.py): the store's word that signoff
    # started this run, which an effect without a reviewer asks for. `recorded` makes
    # the request the service recorded from the one the run starts with (a run started
    # with another request under its id); False records none (a run someone started
    # on signoff's task queue without the service).
    if recorded is not False:
        record_started_run(engine, request if recorded is None else recorded(request))
    async with gate_worker(
        env,
        model,
        engine,
        task_queue,
        limits,
        refunds,
        audit,
        decision_max_age=max_age,
        profiles=profiles,
        payments=payments,
        effects=effects,
    ):
        yield await start(env.client, request, task_queue)


def gate_worker(
    env: WorkflowEnvironment,
    model: ModelActivities,
    engine: Engine,
    task_queue: str,
    limits: LimitsSource = generous_limits,
    refunds: RefundActivities | None = None,
    audit: DecisionActivities | None = None,
    *,
    decision_max_age: timedelta = SKIPPING_MAX_AGE,
    workflows: Sequence[type] = (AgentRun,),
    profiles: LoadedProfiles | None = None,
    effects: ToolEffects | None = None,
    payments: PaymentConnectors | None = None,
    run_keys: VerificationKeys | None = TEST_KEYS,
) -> Worker:
    """A worker of `workflows` on `task_queue`, with the real gateway and store
    activities, the signed decisions' verifier and the fake `model`; its effects judge
    tool calls by `profiles` (the built-in file when None), unless `effects` replaces
    them (a tenant's helpdesk connector); `payments` picks each tenant's payments
    connector (the ledger for all when None). Its runs get `limits` and `run_keys` with
    their first model turn, as from `signoff worker` (None: no key, every decision goes
    to `verify_decision`)."""
    if run_keys is not None:
        limits = keyed_limits(limits, run_keys, decision_max_age)
    parts = store_parts(
        engine,
        model,
        refunds=refunds,
        audit=audit,
        effects=effects,
        profiles=profiles,
        payments=payments,
        decision_max_age=decision_max_age,
    )
    return worker(
        env.client,
        task_queue,
        model,
        workflows=workflows,
        activities=worker_activities(parts, replacing=[limited(model, limits)]),
    )


def store_parts(
    engine: Engine,
    model: ModelActivities,
    *,
    gateway: ToolGateway | None = None,
    refunds: RefundActivities | None = None,
    audit: DecisionActivities | None = None,
    verifier: DecisionVerifier | None = None,
    effects: ToolEffects | None = None,
    profiles: LoadedProfiles | None = None,
    payments: PaymentConnectors | None = None,
    decision_max_age: timedelta = SKIPPING_MAX_AGE,
    settings: Settings | None = None,
) -> ActivityParts:
    """The worker's activities (signoff/wiring/worker_activities.py) on `engine`, with
    the fake `model` and the tests' decision key; each argument given replaces its part.
    A ModelTurns `model`'s limits and the reviewer notices read `settings` (the defaults
    when None), as `signoff worker` reads its own."""
    settings = settings or Settings()
    if isinstance(model, ModelTurns):
        model.read_catalogs_from(engine)  # as activity_parts does for `signoff worker`
        model.hold_to(WorkerLimits(settings).limits_for)
    loaded = profiles or load_profile_file(BUILTIN_PROFILES)
    return ActivityParts(
        models=model,
        gateway=gateway or ToolGateway(engine, payments, HeldProfiles.of([loaded])),
        effects=effects or ToolEffects(engine, TEST_KEYS, loaded, MCP_TIMEOUT_SECONDS),
        refunds=refunds
        or RefundActivities(
            engine,
            TEST_KEYS,
            payments=payments,
            profiles=loaded.profiles,
        ),
        verifier=verifier or DecisionVerifier(engine, TEST_KEYS, decision_max_age),
        decisions=audit or DecisionActivities(engine, TEST_KEYS),
        notifier=ReviewerNotifier(settings),
        mcp=McpTools(
            MCP_TIMEOUT_SECONDS,
            HeldProfiles.of([loaded]),
            engine,
        ),
    )


async def state_when(
    handle: WorkflowHandle[Any, Any],
    predicate: Callable[[RunState], bool],
    what: str,
    within: float = WAIT_SECONDS,
) -> RunState:
    """Poll the `state` query (in real time) until `predicate` holds."""
    deadline = time.monotonic() + within
    while True:
        state: RunState = await handle.query(AgentRun.state)
        if predicate(state):
            return state
        assert time.monotonic() < deadline, f"never {what}: {state.status}, {state.events}"
        await asyncio.sleep(POLL_SECONDS)


async def pending_actions(
    handle: WorkflowHandle[Any, Any], count: int = 1, within: float = WAIT_SECONDS
) -> list[PendingAction]:
    """Wait until the run waits for a decision on `count` actions; return them."""
    state = await state_when(
        handle,
        lambda s: s.status == "waiting_for_approval" and len(s.pending_actions) == count,
        f"waiting for {count} decision(s)",
        within,
    )
    return state.pending_actions


def decision(
    engine: Engine,
    reviewer_id: str,
    action_hash: str,
    verdict: Verdict = "approve",
    reason: str = "",
    category: RejectCategory | None = None,
) -> Decision:
    """A decision by a seeded reviewer, with the tenant and roles the store holds; a
    rejection's category is `other` unless named.

    Unsigned: `decide` and `refused` sign it for the run they send it to, as a front
    end that authenticated the reviewer does.
    """
    reviewer = get_reviewer(engine, reviewer_id)
    assert reviewer is not None, reviewer_id
    return Decision(
        action_hash=action_hash,
        verdict=verdict,
        reviewer_id=reviewer.id,
        reviewer_roles=reviewer.role_list,
        tenant_id=reviewer.tenant_id,
        reason=reason,
        category=category or ("other" if verdict == "reject" else None),
    )


def signed(
    sent: Decision,
    run_id: str,
    signer: DecisionSigner = TEST_SIGNER,
    at: datetime | None = None,
) -> Decision:
    """`sent` with the decision service's proof: a fresh nonce, the time, the key id and
    the signature."""
    proof = sent.model_copy(
        update={
            "issued_at": at or datetime.now(UTC),
            "nonce": secrets.token_hex(16),
            "key_id": signer.key_id,
        }
    )
    return proof.model_copy(update={"signature": signer.sign(proof.signed_document(run_id))})


def install_test_keys(settings: Settings) -> None:
    """TEST_SIGNER as the signing key of `settings`' home, and its public key in the set
    that a worker built from `settings` loads."""
    if TEST_SIGNER.key_id not in {entry.key_id for entry in public_entries(settings)}:
        rotate(settings, key=TEST_SIGNER.private_key)


def install_test_public_keys(home: Path) -> Path:
    """Only TEST_SIGNER's public key in `home`: what a worker host holds, and no more."""
    with tempfile.TemporaryDirectory() as service_home:
        service = Settings(home=Path(service_home))
        install_test_keys(service)
        target = Settings(home=home).public_keys_path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(service.public_keys_path, target)
    return target


def signed_by_an_impostor(proof: Decision, run_id: str) -> Decision:
    """`proof`, still naming the deployment's key id, signed again with a key that is not
    the deployment's: what a worker or CLI host could make without the private key."""
    impostor = Ed25519PrivateKey.generate()
    signature = impostor.sign(canonical_bytes(proof.signed_document(run_id))).hex()
    return proof.model_copy(update={"signature": signature})


def with_proof(handle: WorkflowHandle[Any, Any], sent: Decision) -> Decision:
    return sent if sent.signature is not None else signed(sent, handle.id)


async def decide(handle: WorkflowHandle[Any, Any], sent: Decision) -> DecisionResult:
    update = handle.execute_update(AgentRun.decide, with_proof(handle, sent))
    result = await asyncio.wait_for(update, UPDATE_SECONDS)  # a hang fails, named
    assert isinstance(result, DecisionResult)
    return result


async def refused(handle: WorkflowHandle[Any, Any], sent: Decision) -> str:
    """Send a decision the run must refuse; return the message the reviewer reads."""
    with pytest.raises(WorkflowUpdateFailedError) as caught:
        update = handle.execute_update(AgentRun.decide, with_proof(handle, sent))
        await asyncio.wait_for(update, UPDATE_SECONDS)
    cause = caught.value.cause
    assert isinstance(cause, ApplicationError), cause
    return cause.message


async def accepted_updates(handle: WorkflowHandle[Any, Any]) -> int:
    """How many decisions reached the history: a refused one must leave no trace."""
    history = await handle.fetch_history()
    return sum(
        1
        for event in history.events
        if event.HasField("workflow_execution_update_accepted_event_attributes")
    )


def refunded(engine: Engine, order_id: str) -> list[Decimal]:
    return [row.amount for row in list_refunds(engine, "demo", order_id)]


def results_of_turn(request: ModelRequest) -> list[ToolResultBlock]:
    """The tool results sent with `request`: its last message, which holds only them."""
    last = request.messages[-1]
    assert last.role == "user"
    blocks = [block for block in last.content if isinstance(block, ToolResultBlock)]
    assert len(blocks) == len(last.content)
    return blocks


async def audit_caught_up(handle: WorkflowHandle[Any, Any], engine: Engine) -> None:
    """Wait until the store's audit holds every record of the run's trail.

    Time-skipping note: cancelling a run while its `record_decision` activity is
    scheduled but not started makes the test server refuse the workflow task
    ("ACTIVITY_UNKNOWN"), and the run hangs; a real server takes that cancellation.
    Tests that cancel a run after a decision wait for this first.
    """
    state: RunState = await handle.query(AgentRun.state)
    query = AuditQuery(tenant_id=state.tenant_id)
    deadline = time.monotonic() + WAIT_SECONDS
    while sum(row.run_id == handle.id for row in audit_rows(engine, query, batch=500)) < len(
        state.decisions
    ):
        assert time.monotonic() < deadline, "the audit never caught up with the trail"
        await asyncio.sleep(POLL_SECONDS)
