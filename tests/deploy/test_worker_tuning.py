"""The worker's capacity and shutdown grace come from Settings, with defaults for 2 cores;
a running worker has a thread for each activity slot; its heartbeat file exists while
it polls and is gone once it stopped, and it closes its model clients when it stops."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import PollerBehaviorSimpleMaximum

from activities.model_turn import ModelTurns
from activities.models.scripted import SCRIPTS_DIR, ScriptedModel
from signoff.config.settings import Settings
from signoff.wiring import worker as worker_module
from signoff.wiring.worker import build_worker, run_worker
from tests.workflow.approvals import TEST_SIGNER, install_test_public_keys
from tests.workflow.fakes import new_task_queue

WAIT_SECONDS = 30
# Far more than starting a dozen threads takes.
ALL_STARTED_SECONDS = 5


def test_the_defaults_suit_two_cores() -> None:
    settings = Settings()
    assert settings.worker_max_concurrent_activities == 50
    assert settings.worker_max_concurrent_workflow_tasks == 10
    assert settings.worker_max_cached_workflows == 250
    assert settings.worker_workflow_task_pollers == 4
    assert settings.worker_activity_task_pollers == 4
    assert settings.worker_shutdown_seconds == 30


async def test_the_worker_is_built_from_the_settings(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    install_test_public_keys(tmp_path)
    settings = Settings(
        home=tmp_path,
        trusted_key_ids=TEST_SIGNER.key_id,
        task_queue=new_task_queue(),
        worker_max_concurrent_activities=7,
        worker_max_concurrent_workflow_tasks=3,
        worker_max_cached_workflows=11,
        worker_workflow_task_pollers=2,
        worker_activity_task_pollers=5,
        worker_shutdown_seconds=12.5,
    )
    config = build_worker(time_skipping_env.client, settings).config()
    assert config.get("max_concurrent_activities") == 7
    assert config.get("max_concurrent_workflow_tasks") == 3
    assert config.get("max_cached_workflows") == 11
    assert config.get("workflow_task_poller_behavior") == PollerBehaviorSimpleMaximum(2)
    assert config.get("activity_task_poller_behavior") == PollerBehaviorSimpleMaximum(5)
    assert config.get("graceful_shutdown_timeout") == timedelta(seconds=12.5)


@pytest.mark.parametrize("value", ["1", "0"])
def test_fewer_than_two_workflow_pollers_are_refused(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The SDK needs two of each with a sticky cache; say so at start, not at first poll.
    monkeypatch.setenv("SIGNOFF_WORKER_WORKFLOW_TASK_POLLERS", value)
    with pytest.raises(ValueError, match="worker_workflow_task_pollers"):
        Settings()


async def test_a_running_worker_has_a_thread_for_every_activity_slot(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    """Every blocking call an activity hands to asyncio's default executor gets a thread
    at once, up to the worker's slots (worker_capacity.py's note): here 12, where the
    loop's executor had 2 before the worker started."""
    slots = 12
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(2))
    install_test_public_keys(tmp_path)
    settings = Settings(
        home=tmp_path,
        trusted_key_ids=TEST_SIGNER.key_id,
        task_queue=new_task_queue(),
        worker_max_concurrent_activities=slots,
    )
    stop, release = asyncio.Event(), threading.Event()
    running = asyncio.create_task(run_worker(time_skipping_env.client, settings, stop))
    entered: list[int] = []

    def blocked(number: int) -> None:
        entered.append(number)
        release.wait()

    await asyncio.sleep(0.5)  # the worker has started (it sets the executor first)
    assert not running.done()
    waiting = asyncio.gather(*(asyncio.to_thread(blocked, number) for number in range(slots)))
    try:
        async with asyncio.timeout(ALL_STARTED_SECONDS):
            while len(entered) < slots:
                await asyncio.sleep(0.02)
    finally:
        release.set()
        stop.set()
        await waiting
    await asyncio.wait_for(running, WAIT_SECONDS)
    assert sorted(entered) == list(range(slots))
    loop.set_default_executor(ThreadPoolExecutor())


async def test_the_heartbeat_file_lives_while_the_worker_runs(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    alive = tmp_path / "state" / "worker-alive"
    install_test_public_keys(tmp_path)
    settings = Settings(
        home=tmp_path,
        trusted_key_ids=TEST_SIGNER.key_id,
        task_queue=new_task_queue(),
        worker_heartbeat_file=alive,
    )
    stop = asyncio.Event()
    running = asyncio.create_task(run_worker(time_skipping_env.client, settings, stop))
    async with asyncio.timeout(WAIT_SECONDS):
        while not alive.exists():
            assert not running.done(), running.exception()
            await asyncio.sleep(0.05)
    stop.set()
    await asyncio.wait_for(running, WAIT_SECONDS)
    assert not alive.exists()


async def test_a_stopped_worker_closes_its_model_clients(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An Anthropic or OpenAI client left to the garbage collector schedules a close
    nobody awaits; the worker closes its adapters itself once it stopped."""
    closed: list[bool] = []

    class Watched(ModelTurns):
        async def close(self) -> None:
            closed.append(True)
            await super().close()

    def watched_turns(settings: Settings) -> ModelTurns:
        return Watched({"scripted": lambda: ScriptedModel(SCRIPTS_DIR)})

    monkeypatch.setattr(worker_module, "build_model_turns", watched_turns)
    install_test_public_keys(tmp_path)
    settings = Settings(
        home=tmp_path, task_queue=new_task_queue(), trusted_key_ids=TEST_SIGNER.key_id
    )
    stop = asyncio.Event()
    running = asyncio.create_task(run_worker(time_skipping_env.client, settings, stop))
    await asyncio.sleep(0.5)
    assert not running.done() and closed == []
    stop.set()
    await asyncio.wait_for(running, WAIT_SECONDS)
    assert closed == [True]
