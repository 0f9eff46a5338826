"""Worker assembly: the workflow and every activity, wired to the same settings."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta

from sqlalchemy import Engine
from temporalio.client import Client
from temporalio.worker import Worker

from activities.connectors.breakers import Breakers, policy_from_settings
from activities.connectors.replies import HelpdeskReplies
from activities.decision_verifier import DecisionVerifier
from activities.decisions import DecisionActivities
from activities.held_profiles import HeldProfiles
from activities.local_lane import local_lane
from activities.mcp.activities import McpTools
from activities.metrics import keep_fresh, register_store_gauges
from activities.model_turn import ModelTurns, build_model_turns
from activities.observe_interceptor import ObserveInterceptor
from activities.payments.registry import PaymentConnectors
from activities.refunds import RefundActivities
from activities.refusal_audit import RefusalAudit
from activities.reviewer_notifier import ReviewerNotifier
from activities.run_limits import WorkerLimits
from activities.store import make_engine
from activities.store.passkey_proofs import PasskeyCheck
from activities.tool_effects import ToolEffects
from activities.tool_gateway import ToolGateway
from signoff.config.decision_keys import load_verification_keys
from signoff.config.passkey_policy import PasskeyPolicy
from signoff.config.passkeys import RelyingParty
from signoff.config.profiles import LoadedProfiles, load_profiles
from signoff.config.settings import Settings
from signoff.service.waiting_reconcile import keep_reconciled
from signoff.wiring.worker_activities import ActivityParts, worker_activities
from signoff.wiring.worker_capacity import activity_threads, capacity
from signoff.wiring.worker_heartbeat import heartbeat
from workflows.registered import WORKFLOW_TYPES
from workflows.sandbox import workflow_runner


def build_worker(
    client: Client,
    settings: Settings,
    engine: Engine | None = None,
    *,
    refunds: RefundActivities | None = None,
    models: ModelTurns | None = None,
    profiles: LoadedProfiles | None = None,
    effects: ToolEffects | None = None,
) -> Worker:
    """The worker `signoff worker` runs; `refunds` replaces the refund activities (the
    evals' fault workers hold a refund's answer back, signoff/wiring/eval_faults.py);
    `models` are the model adapters, whose HTTP clients their owner closes; `profiles`
    the agent profiles its effects judge tool calls by (SIGNOFF_PROFILES when None,
    which also imports the Python tools they name); `effects` replaces the effect of
    irreversible tools (tests/e2e/mcp_crash_worker.py kills it mid-call)."""
    engine = engine or make_engine(
        settings.resolved_database_url, migrate=settings.migrate_at_start
    )
    parts = activity_parts(
        settings, engine, refunds=refunds, models=models, profiles=profiles, effects=effects
    )
    # Pending refunds, read now and then in the background (run_worker), never by a scrape.
    register_store_gauges(engine).refresh()
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=list(WORKFLOW_TYPES),
        workflow_runner=workflow_runner(),
        activities=worker_activities(parts),
        **capacity(settings),
        # Metrics of attempts and outcomes; tracing comes with the client (telemetry.py).
        # Every caller refusal of any activity on the audit (activities/refusal_audit.py).
        interceptors=[ObserveInterceptor(), RefusalAudit(engine)],
    )


def activity_parts(
    settings: Settings,
    engine: Engine,
    *,
    refunds: RefundActivities | None = None,
    models: ModelTurns | None = None,
    profiles: LoadedProfiles | None = None,
    effects: ToolEffects | None = None,
) -> ActivityParts:
    """The objects whose methods are `signoff worker`'s activities, on `engine` and the
    settings (bench/runs/workers.py builds its raw baseline's worker from the same);
    the keyword arguments are build_worker's."""
    # Per tenant: Stripe for those SIGNOFF_STRIPE_KEYS_FILE names, the ledger otherwise.
    payments = PaymentConnectors(settings)
    # Public keys only: a worker checks decisions and can never sign one.
    keys = load_verification_keys(settings)
    models = models or build_model_turns(settings)
    if isinstance(models, ModelTurns):
        # Runs started on a profile name their prompt catalog; it is in this store.
        models.read_catalogs_from(engine)
        # The limits a run's first turn brings back, with this worker's keys and connectors.
        models.hold_to(WorkerLimits(settings, keys, payments).limits_for)
    profiles = profiles or load_profiles(settings)
    # The step-up policy from this worker's own profiles and settings, never the store's.
    passkeys = PasskeyCheck(
        PasskeyPolicy.of(profiles.profiles, settings.passkey_above), RelyingParty.of(settings)
    )
    # The local activities' store calls, apart from the others' (activities/local_lane.py).
    local = local_lane(engine)
    return ActivityParts(
        models=models,
        gateway=ToolGateway(engine, payments, HeldProfiles.of([profiles])),
        effects=effects
        or ToolEffects(
            engine,
            keys,
            profiles,
            settings.mcp_timeout_seconds,
            passkeys=passkeys,
            helpdesks=HelpdeskReplies.from_settings(engine, settings),
        ),
        refunds=refunds
        or RefundActivities(
            engine,
            keys,
            passkeys,
            payments,
            Breakers(engine, policy_from_settings(settings)),
            # What the worker's own profiles demand of a refund's approvers (N of M).
            profiles=profiles.profiles,
            holds=local,
        ),
        verifier=DecisionVerifier(
            local.engine,
            keys,
            timedelta(seconds=settings.decision_max_age_seconds),
            threads=local.threads,
        ),
        decisions=DecisionActivities(engine, keys),
        notifier=ReviewerNotifier(settings, profiles.profiles),
        mcp=McpTools(settings.mcp_timeout_seconds, HeldProfiles.of([profiles]), engine),
    )


async def run_worker(client: Client, settings: Settings, stop: asyncio.Event) -> None:
    """Run until `stop` is set; in-flight activities get the worker's graceful shutdown."""
    # A thread for every activity slot (worker_capacity.py's note).
    asyncio.get_running_loop().set_default_executor(activity_threads(settings))
    engine = make_engine(settings.resolved_database_url, migrate=settings.migrate_at_start)
    models = build_model_turns(settings)
    worker = build_worker(client, settings, engine, models=models)
    async with contextlib.AsyncExitStack() as stack:
        # Last out: the model clients close once the worker's activities are done.
        stack.push_async_callback(models.close)
        await stack.enter_async_context(worker)
        await stack.enter_async_context(heartbeat(settings.worker_heartbeat_file))
        # The inbox's read model, mended from visibility beside the polling: at 10,000
        # waiting runs the listing takes seconds, and runs must not wait for it.
        mending = asyncio.create_task(keep_reconciled(client, engine, settings))
        gauges = register_store_gauges(engine)
        refreshing = asyncio.create_task(keep_fresh(gauges, settings.metrics_refresh_seconds))
        try:
            await stop.wait()
        finally:
            for task in (mending, refreshing):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
