"""Worker assembly: the workflow and every activity, wired to the same settings."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import Engine
from temporalio.client import Client
from temporalio.worker import Worker

from activities.decision_verifier import DecisionVerifier
from activities.decisions import DecisionActivities
from activities.model_turn import build_model_turns
from activities.refunds import RefundActivities
from activities.reviewer_notifier import ReviewerNotifier
from activities.run_limits import RunLimitsActivity
from activities.store import make_engine
from activities.tool_gateway import ToolGateway
from signoff.config.decision_key import load_decision_key
from signoff.config.settings import Settings
from workflows.agent_run import AgentRun
from workflows.triage import TriageTicket


def build_worker(client: Client, settings: Settings, engine: Engine | None = None) -> Worker:
    engine = engine or make_engine(settings.resolved_database_url)
    models = build_model_turns(settings)
    gateway = ToolGateway(engine)
    refunds = RefundActivities(engine)
    verifier = DecisionVerifier(
        engine,
        load_decision_key(settings),
        timedelta(seconds=settings.decision_max_age_seconds),
    )
    limits = RunLimitsActivity(settings)
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=[AgentRun, TriageTicket],
        activities=[
            models.model_turn,
            gateway.run_tool,
            refunds.read_action_state,
            refunds.execute_refund,
            verifier.verify_decision,
            refunds.hold_pending_refund,
            refunds.release_pending_refund,
            DecisionActivities(engine).record_decision,
            limits.run_limits,
            ReviewerNotifier(settings).notify_reviewers,
        ],
    )


async def run_worker(client: Client, settings: Settings, stop: asyncio.Event) -> None:
    """Run until `stop` is set; in-flight activities get the worker's graceful shutdown."""
    worker = build_worker(client, settings)
    async with worker:
        await stop.wait()
