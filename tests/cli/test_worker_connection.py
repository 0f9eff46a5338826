"""`client_for(worker=True)`: the worker's connection is made with the runtime the service
sets up, so the CLI imports nothing of Temporal to set it up; a metrics port it cannot
bind stays its own error, never "Cannot reach Temporal"."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from signoff.cli.support import client_for
from signoff.config.settings import Settings
from signoff.service import run_connection

WORKER_RUNTIME = object()


def test_only_a_worker_connects_with_the_worker_runtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtimes: list[Any] = []

    async def connect(settings: Settings, runtime: Any, *, traced: bool) -> str:
        runtimes.append(runtime)
        return "runs"

    monkeypatch.setattr(run_connection, "connect", connect)
    monkeypatch.setattr(run_connection, "worker_runtime", lambda settings: WORKER_RUNTIME)
    asyncio.run(client_for(Settings(home=tmp_path), worker=True))
    asyncio.run(client_for(Settings(home=tmp_path)))
    assert runtimes == [WORKER_RUNTIME, None]


def test_a_metrics_port_taken_is_not_temporal_unreachable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def taken(settings: Settings) -> None:
        raise ValueError("Failed starting Prometheus exporter: Address already in use")

    monkeypatch.setattr(run_connection, "worker_runtime", taken)
    with pytest.raises(ValueError, match="Address already in use"):
        asyncio.run(client_for(Settings(home=tmp_path), worker=True))


def test_without_a_metrics_port_the_worker_runtime_is_the_default(tmp_path: Path) -> None:
    assert run_connection.worker_runtime(Settings(home=tmp_path)) is None
