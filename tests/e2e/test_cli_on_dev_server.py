"""The whole path an ops user takes: `signoff dev`, then run, status and list, then Ctrl-C.

Everything runs as real processes: the launcher (tests/e2e/conftest.py) starts the
Temporal dev server from the venv's `temporal` binary, a worker and the demo data; the
CLI talks to it over gRPC.
"""

from __future__ import annotations

import time

import pytest

from tests.e2e.cli import VISIBILITY_SECONDS, json_of, signoff

pytestmark = pytest.mark.devserver


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
        rows = json_of(signoff(dev_stack, "list", "--status", "completed", "--json"))["items"]
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
