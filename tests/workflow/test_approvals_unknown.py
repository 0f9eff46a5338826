"""A refund whose ledger never answered: the model is told the outcome is unknown, the
run's outcome lists the action as unknown, and reconcile says from the ledger whether
it happened. A store that refused outright is still a clean refusal."""

from __future__ import annotations

import asyncio
import json
from contextlib import AbstractAsyncContextManager
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import Engine
from temporalio import activity
from temporalio.client import WorkflowHandle
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment
from typer.testing import CliRunner, Result

from activities.refunds import RefundActivities
from signoff.config.settings import get_settings
from signoff.service.handles import Runs, Store
from signoff.service.reconcile import settle, unknown_effects_of
from signoff.wiring.app import app
from tests.workflow.approvals import (
    TEST_KEYS,
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
    results_of_turn,
)
from tests.workflow.fakes import (
    FakeModel,
    ModelActivities,
    replay,
    text_reply,
    tool_reply,
)
from workflows.actions import EXECUTE_REFUND_ACTIVITY, RefundCommand, RefundResult
from workflows.contracts import RunOutcome

REFUND = ("refund", {"amount": "10.00", "reason": "The vase arrived broken."})


class LedgerThatNeverAnswers(RefundActivities):
    """Every attempt fails like a dropped connection, after its commit or before it."""

    def __init__(self, engine: Engine, commit_first: bool) -> None:
        super().__init__(engine, TEST_KEYS)
        self.commit_first = commit_first
        self.attempts = 0

    @activity.defn(name=EXECUTE_REFUND_ACTIVITY)
    async def execute_refund(self, command: RefundCommand) -> RefundResult:
        self.attempts += 1
        if self.commit_first:
            await super().execute_refund(command)  # commits, or finds its own row
        raise ConnectionError("server closed the connection unexpectedly")


class StoreThatRefuses(RefundActivities):
    @activity.defn(name=EXECUTE_REFUND_ACTIVITY)
    async def execute_refund(self, command: RefundCommand) -> RefundResult:
        raise ApplicationError(
            "Tenant 'demo' does not exist.", type="UnknownTenant", non_retryable=True
        )


def run_with(
    env: WorkflowEnvironment, model: ModelActivities, engine: Engine, refunds: RefundActivities
) -> AbstractAsyncContextManager[WorkflowHandle[Any, Any]]:
    return gate_run(env, model, engine, refunds=refunds)


def reconcile_cli(
    env: WorkflowEnvironment, engine: Engine, monkeypatch: pytest.MonkeyPatch, *arguments: str
) -> Result:
    """`signoff reconcile` as a user types it, against this test server and store."""
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", env.client.service_client.config.target_host)
    monkeypatch.setenv("SIGNOFF_DATABASE_URL", engine.url.render_as_string(hide_password=False))
    get_settings.cache_clear()
    try:
        return CliRunner().invoke(app, ["reconcile", *arguments])
    finally:
        get_settings.cache_clear()


@pytest.mark.parametrize("commit_first", [True, False], ids=["after-commit", "before-commit"])
async def test_a_ledger_that_never_answered_is_an_unknown_outcome(
    isolated_env: WorkflowEnvironment,
    seeded_engine: Engine,
    commit_first: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Its own server: ten attempts' backoff (minutes) must skip, and a time-skipping
    # lock an earlier test left on the shared server would hold it in real time.
    env = isolated_env
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("A colleague will confirm."))
    ledger = LedgerThatNeverAnswers(seeded_engine, commit_first)
    async with run_with(env, model, seeded_engine, ledger) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()
        tenant, effects = await unknown_effects_of(Runs(env.client), handle.id)
    await replay(handle)

    assert ledger.attempts > 1  # Temporal retried until its attempts ran out
    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    assert "outcome unknown: a person will check" in result.content
    assert "did not happen" not in result.content
    assert isinstance(outcome, RunOutcome)
    (unknown,) = outcome.effects_unknown
    assert (unknown.action_hash, unknown.order_id, unknown.amount) == (
        action.action_hash,
        "C-1042",
        "10.00",
    )
    assert unknown.idempotency_key == f"{handle.id}:refund:{action.action_hash}"
    assert outcome.effects_performed == [] and outcome.not_performed == []

    # Reconcile tells the truth from the ledger, whichever way it went.
    assert (tenant, effects) == ("demo", [unknown])
    (settlement,) = settle(Store(seeded_engine), handle.id, tenant, effects)
    assert settlement.happened is commit_first
    assert refunded(seeded_engine, "C-1042") == ([Decimal("10.00")] if commit_first else [])
    if commit_first:
        assert settlement.settled.refund_id is not None
        assert settlement.settled.approvers == ("alice",)
        assert "HAPPENED" in settlement.line()
    else:
        assert "DID NOT HAPPEN" in settlement.line()

    # The command (in a thread: it runs its own event loop).
    text = await asyncio.to_thread(reconcile_cli, env, seeded_engine, monkeypatch, handle.id)
    assert text.exit_code == 0, text.stderr
    assert ("HAPPENED" if commit_first else "DID NOT HAPPEN") in text.stdout
    as_json = await asyncio.to_thread(
        reconcile_cli, env, seeded_engine, monkeypatch, handle.id, "--json"
    )
    (row,) = json.loads(as_json.stdout)["actions"]
    assert (row["idempotency_key"], row["happened"]) == (unknown.idempotency_key, commit_first)


async def test_a_store_that_refused_is_a_clean_refusal(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Sorry."))
    async with run_with(
        env, model, seeded_engine, StoreThatRefuses(seeded_engine, TEST_KEYS)
    ) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        outcome = await handle.result()

    (result,) = results_of_turn(model.history[1])
    assert result.is_error
    assert result.content.startswith("The refund did not happen: the store refused it:")
    assert outcome.effects_unknown == []
    assert len(outcome.not_performed) == 1


async def test_reconcile_of_a_run_that_does_not_exist_is_bad_input(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = await asyncio.to_thread(
        reconcile_cli, time_skipping_env, seeded_engine, monkeypatch, "run-demo-nope"
    )
    assert result.exit_code == 2
    assert "No run with id 'run-demo-nope'" in result.stderr
