"""What `signoff history gates` says of each gate: the open runs that hold its marker,
the ones without it, and when the oldest of those started (the versioning policy's
test before a gate becomes `deprecate_patch`, and before it goes)."""

from __future__ import annotations

from datetime import timedelta

from signoff.cli.commands_history import gate_line
from signoff.service.history_gates import GateRuns, OpenRun, gate_runs
from tests.clock import clock_now

NOW = clock_now()


def run(run_id: str, hours_ago: int, *patches: str) -> OpenRun:
    return OpenRun(run_id, NOW - timedelta(hours=hours_ago), frozenset(patches))


def test_a_gate_lists_who_holds_it_and_the_oldest_start_of_who_does_not() -> None:
    runs = [run("old", 30, "a"), run("older", 50), run("new", 1, "a", "b"), run("fresh", 2)]

    found = gate_runs(runs)

    assert found["a"] == GateRuns(("old", "new"), ("older", "fresh"), NOW - timedelta(hours=50))
    assert found["b"].holding == ("new",)
    assert found["b"].oldest_without == NOW - timedelta(hours=50)


def test_a_gate_asked_for_that_no_run_holds_lists_every_run_without_it() -> None:
    found = gate_runs([run("one", 3), run("two", 5, "a")], asked=["c"])

    assert found["c"] == GateRuns((), ("one", "two"), NOW - timedelta(hours=5))
    assert set(found) == {"a", "c"}


def test_no_open_run_no_gate_unless_asked() -> None:
    assert gate_runs([]) == {}
    assert gate_runs([], asked=["c"]) == {"c": GateRuns()}


def test_the_line_says_what_the_policy_asks() -> None:
    oldest = NOW - timedelta(hours=50)
    line = gate_line(GateRuns(("r1", "r2"), ("r3",), oldest))
    assert line.startswith("2 open runs hold it, e.g. r1; 1 open run without it")
    assert f"the oldest started {oldest:%Y-%m-%d %H:%M} UTC" in line
    assert gate_line(GateRuns(("r1",), ())) == "1 open run holds it, e.g. r1; every open run does"
    assert gate_line(GateRuns((), ("r3",), None)) == "0 open runs hold it; 1 open run without it"
