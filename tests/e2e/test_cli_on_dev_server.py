"""The whole path an ops user takes: `signoff dev`, then run, status and list, then Ctrl-C.

Everything runs as real processes: the launcher starts the Temporal dev server from the
venv's `temporal` binary, a worker and the demo data; the CLI talks to it over gRPC.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SIGNOFF = str(Path(sys.executable).parent / "signoff")
READY_SECONDS = 90
VISIBILITY_SECONDS = 20

pytestmark = pytest.mark.devserver


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def dev_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    home = tmp_path_factory.mktemp("signoff-home")
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANTHROPIC")}
    env.update(
        SIGNOFF_HOME=str(home),
        SIGNOFF_TEMPORAL_ADDRESS=f"127.0.0.1:{free_port()}",
        SIGNOFF_TEMPORAL_UI_PORT=str(free_port()),
        SIGNOFF_TASK_QUEUE=f"e2e-{os.getpid()}",
    )
    log = (home / "dev.log").open("w")
    launcher = subprocess.Popen([SIGNOFF, "dev"], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + READY_SECONDS
        while "Press Ctrl-C" not in (home / "dev.log").read_text():
            assert launcher.poll() is None, (home / "dev.log").read_text()
            assert time.monotonic() < deadline, "signoff dev did not get ready"
            time.sleep(0.2)
        yield env
    finally:
        launcher.send_signal(signal.SIGINT)
        try:
            launcher.wait(timeout=30)
        finally:
            if launcher.poll() is None:
                launcher.kill()
            log.close()
    assert launcher.returncode == 0, (home / "dev.log").read_text()
    assert "Stopped the worker and the Temporal dev server" in (home / "dev.log").read_text()


def signoff(
    env: dict[str, str], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SIGNOFF, *args], env=env, input=stdin, capture_output=True, text=True, timeout=120
    )


def json_of(result: subprocess.CompletedProcess[str]) -> Any:
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def test_order_status_run_end_to_end(dev_stack: dict[str, str]) -> None:
    seeded = json_of(signoff(dev_stack, "seed", "--json"))
    assert seeded["created"] == []  # the launcher seeded already: seeding again is harmless

    waited = signoff(dev_stack, "run", "--ticket", "T-4512", "--request-id", "e2e-1", "--wait")
    assert waited.returncode == 0, waited.stderr
    assert "turn 1: calling read_ticket" in waited.stdout  # progress was shown
    assert "get_order -> ok" in waited.stdout
    assert "TRK-88" in waited.stdout

    status = json_of(signoff(dev_stack, "status", "run-demo-e2e-1", "--json"))
    assert status["status"] == "completed"
    outcome = status["outcome"]
    assert outcome["reason"] == "answered"
    assert [call["name"] for call in outcome["tool_calls"]] == ["read_ticket", "get_order"]
    assert outcome["scripted"] is True

    # Visibility is eventually consistent: the run shows up in the list shortly.
    deadline = time.monotonic() + VISIBILITY_SECONDS
    while True:
        rows = json_of(signoff(dev_stack, "list", "--status", "completed", "--json"))
        if any(row["run_id"] == "run-demo-e2e-1" for row in rows):
            break
        assert time.monotonic() < deadline, rows
        time.sleep(0.5)


def test_same_request_id_gives_the_same_run(dev_stack: dict[str, str]) -> None:
    first = json_of(
        signoff(dev_stack, "run", "--ticket", "T-9999", "--request-id", "e2e-2", "--json")
    )
    second = json_of(
        signoff(dev_stack, "run", "--ticket", "T-9999", "--request-id", "e2e-2", "--json")
    )
    assert first["run_id"] == second["run_id"] == "run-demo-e2e-2"
    assert first["new"] is True and second["new"] is False
    outcome = json_of(
        signoff(dev_stack, "run", "--ticket", "T-9999", "--request-id", "e2e-2", "--wait", "--json")
    )
    assert outcome["status"] == "completed"
    assert "could not find an order" in outcome["final_text"]


def test_a_failed_run_exits_1(dev_stack: dict[str, str]) -> None:
    result = signoff(
        dev_stack, "run", "--ticket", "T-1042", "--model", "scripted:truncated", "--wait"
    )
    assert result.returncode == 1
    assert "truncated_reply" in result.stdout


def test_a_ticket_added_from_stdin_can_be_run(dev_stack: dict[str, str]) -> None:
    added = json_of(
        signoff(
            dev_stack,
            "ticket",
            "add",
            "--tenant",
            "demo",
            "--order",
            "4512",
            "--text-file",
            "-",
            "--json",
            stdin="Any news on my parcel?",
        )
    )
    outcome = json_of(signoff(dev_stack, "run", "--ticket", added["ticket_id"], "--wait", "--json"))
    assert outcome["status"] == "completed"
    assert "TRK-88" in outcome["final_text"]
