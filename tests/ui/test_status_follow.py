"""`signoff status RUN --follow` against a real run on the dev stack (the UI tests' one:
it has the reviewers and the decision service a decision needs): the run's events as
they happen, one line each, each once; the exit code is the run's outcome; Ctrl-C stops
following and leaves the run as it was."""

from __future__ import annotations

import json
import signal
import subprocess

import pytest
from sqlalchemy import Engine

from signoff.wiring.local_stack import SIGNOFF
from tests.ui.conftest import DevStack, RefundCase, add_case, start_run, wait_until_pending
from tests.ui.default_ids import decide_as

pytestmark = pytest.mark.devserver

END_SECONDS = 120


def follow(stack: DevStack, run_id: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [SIGNOFF, "status", run_id, "--follow", *extra],
        env=stack.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def read_until(process: subprocess.Popen[str], words: str) -> list[str]:
    """The lines printed up to the first that holds `words`."""
    assert process.stdout is not None
    lines: list[str] = []
    while not lines or words not in lines[-1]:
        line = process.stdout.readline()
        assert line, f"the command ended before printing {words!r}: {lines}"
        lines.append(line.rstrip("\n"))
    return lines


def waiting_case(stack: DevStack, store: Engine) -> tuple[RefundCase, str]:
    case = add_case(store)
    start_run(stack, case)
    return case, wait_until_pending(stack, case)


def test_follow_prints_each_event_as_it_happens_and_exits_with_the_outcome(
    dev_stack: DevStack, store: Engine
) -> None:
    case, action_hash = waiting_case(dev_stack, store)
    process = follow(dev_stack, case.run_id)
    before = read_until(process, "waits for")
    assert before[0].startswith(f"following run {case.run_id}")

    decide_as(dev_stack, case, action_hash, "approve", "bob", "")
    rest, errors = process.communicate(timeout=END_SECONDS)
    assert process.returncode == 0, errors  # completed
    after = rest.splitlines()
    assert any("bob" in line for line in after), after  # the decision, as it happened
    assert "outcome:  completed (answered)" in after
    events = [line for line in before[1:] + after if line.startswith("  ")]
    assert len(events) == len(set(events))  # each once


def test_follow_in_json_prints_one_object_a_line_and_a_followed_ended_run_exits_at_once(
    dev_stack: DevStack, store: Engine
) -> None:
    case, action_hash = waiting_case(dev_stack, store)
    decide_as(dev_stack, case, action_hash, "reject", "bob", "no photo of the damage")
    process = follow(dev_stack, case.run_id, "--json")
    printed, errors = process.communicate(timeout=END_SECONDS)
    assert process.returncode == 0, errors  # the run completed: the agent answered
    lines = [json.loads(line) for line in printed.splitlines()]
    *events, last = lines
    assert {"at", "turn", "kind", "text"} <= set(events[0])
    assert any(event["kind"] == "outcome" for event in events)
    assert last["run_id"] == case.run_id and last["status"] == "completed"
    assert last["outcome"]["reason"] == "answered"


def test_ctrl_c_stops_following_and_leaves_the_run_waiting(
    dev_stack: DevStack, store: Engine
) -> None:
    case, _ = waiting_case(dev_stack, store)
    process = follow(dev_stack, case.run_id)
    read_until(process, "waits for")
    process.send_signal(signal.SIGINT)
    _, errors = process.communicate(timeout=END_SECONDS)
    assert process.returncode == 130, errors
    assert f"Stopped following run {case.run_id}; the run goes on." in errors
    assert "Traceback" not in errors
    status = dev_stack.signoff("status", case.run_id, "--json")
    assert json.loads(status.stdout)["status"] == "waiting_for_approval", status.stderr


def test_follow_of_no_such_run_is_bad_input(dev_stack: DevStack) -> None:
    missing = dev_stack.signoff("status", "run-demo-nosuchrun", "--follow")
    assert missing.returncode == 2
    assert "No run with id 'run-demo-nosuchrun'" in missing.stderr
