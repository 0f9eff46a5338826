"""`client_for(worker=True)`: the worker's connection is made with the runtime the service
sets up, so the CLI imports nothing of Temporal to set it up; a metrics port it cannot
bind (the SDK's or our own) is said as such, never "Cannot reach Temporal" or a
traceback."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import typer

from signoff.cli.support import client_for
from signoff.config.settings import Settings
from signoff.service import run_connection
from signoff.wiring.local_stack import SIGNOFF, free_port

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


@contextmanager
def port_taken() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def test_temporal_metrics_port_taken_is_said_not_temporal_unreachable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with port_taken() as port:  # the SDK's core really tries to bind it
        settings = Settings(home=tmp_path, temporal_metrics_port=port)
        with pytest.raises(typer.Exit) as exited:
            asyncio.run(client_for(settings, worker=True))
    assert exited.value.exit_code == 2
    said = capsys.readouterr().err
    assert f"cannot serve Temporal's metrics on 127.0.0.1:{port}" in said
    assert "SIGNOFF_TEMPORAL_METRICS_PORT" in said and "Cannot reach Temporal" not in said


def test_a_worker_whose_metrics_port_is_taken_says_so_and_stops(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SIGNOFF_")}
    env.update(SIGNOFF_HOME=str(tmp_path), SIGNOFF_TEMPORAL_ADDRESS=f"127.0.0.1:{free_port()}")
    # This home is the decision service's too: it makes the key the worker pins.
    ring = {"SIGNOFF_DECISION_SIGNING_KEYS_FILE": str(tmp_path / "decision-signing-keys.json")}
    rotated = subprocess.run(
        [SIGNOFF, "keys", "rotate", "--json"],
        env={**env, **ring},
        capture_output=True,
        timeout=60,
    )
    assert rotated.returncode == 0, rotated.stderr
    env["SIGNOFF_TRUSTED_KEY_IDS"] = json.loads(rotated.stdout)["key_id"]
    with port_taken() as port:
        env["SIGNOFF_METRICS_PORT"] = str(port)
        ran = subprocess.run(
            [SIGNOFF, "worker"], env=env, capture_output=True, text=True, timeout=120
        )
    assert ran.returncode == 2, ran.stderr
    assert f"cannot serve /metrics on 127.0.0.1:{port}" in ran.stderr
    assert "SIGNOFF_METRICS_PORT" in ran.stderr and "Traceback" not in ran.stderr


def test_without_a_metrics_port_the_worker_runtime_is_the_default(tmp_path: Path) -> None:
    assert run_connection.worker_runtime(Settings(home=tmp_path)) is None


def test_signoff_dev_says_its_temporal_metrics_port_is_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not "the dev server did not start within 30 s": the port is asked for once."""
    from signoff.wiring.dev import wait_for_server

    server = subprocess.Popen(["sleep", "30"])
    try:
        with port_taken() as port:
            settings = Settings(home=tmp_path, temporal_metrics_port=port)
            with pytest.raises(typer.Exit):
                asyncio.run(wait_for_server(settings, server))
    finally:
        server.kill()
        server.wait()
    said = capsys.readouterr().err
    assert (
        f"signoff dev will not start: it cannot serve Temporal's metrics on 127.0.0.1:{port}"
        in said
    )
