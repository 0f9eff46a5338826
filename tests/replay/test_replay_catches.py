"""Replay catches what it is for: each deliberate change to the workflow code that an
old run would not survive makes recorded histories fail, naming the file and the event.

The altered copies are in tests/replay/altered.py. The copy without a change must
replay every history, so that what fails below fails for the change alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType

from signoff.cli.commands_history import verdict_lines
from signoff.service.history_files import HistoryFile, expand, load
from signoff.service.history_replay import HistoryReplayer, ReplayVerdict
from tests.replay import altered
from workflows.decision_check import VERIFY_DECISION_ACTIVITY
from workflows.triage import TriageTicket

FOLDER = Path(__file__).parent.parent / "histories"


@pytest.fixture(scope="module")
def files() -> list[HistoryFile]:
    return [load(path) for path in expand([FOLDER])]


async def replay_all(files: list[HistoryFile], *workflows: type) -> dict[str, ReplayVerdict]:
    replayer = HistoryReplayer(workflows)
    return {file.path.name: await replayer.replay(file) for file in files}


def event_type(file: HistoryFile, event_id: int | None) -> int:
    assert event_id is not None, f"{file.path.name}: the failure names no event"
    [event] = [event for event in file.history.events if event.event_id == event_id]
    return event.event_type


def assert_named(verdict: ReplayVerdict) -> None:
    """What `signoff replay` prints names the history and the event."""
    assert verdict.nondeterminism, verdict.message
    printed = "\n".join(verdict_lines(verdict))
    assert verdict.file.path.name in printed
    assert f"at event {verdict.event_id}" in printed


async def test_the_unaltered_copy_replays_every_history(files: list[HistoryFile]) -> None:
    verdicts = await replay_all(files, altered.AgentRunUnchanged, TriageTicket)
    failed = {name: v.message for name, v in verdicts.items() if not v.ok}
    # If this fails after a change to AgentRun.run, copy the change into altered.py.
    assert failed == {}, "tests/replay/altered.py no longer matches AgentRun.run"


async def test_two_activities_swapped(files: list[HistoryFile]) -> None:
    verdicts = await replay_all(
        files, altered.AgentRunUnchanged, altered.TriageClassifiesBeforeReading
    )
    for name, verdict in verdicts.items():
        if verdict.file.workflow_type != "TriageTicket":
            assert verdict.ok, f"{name}: {verdict.message}"
            continue
        assert not verdict.ok, f"{name} replayed with its activities swapped"
        assert_named(verdict)
        # Where the history read the ticket, the code now asks the model.
        assert (
            event_type(verdict.file, verdict.event_id)
            == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        )
        assert "'run_tool'" in str(verdict.message) and "'model_turn'" in str(verdict.message)
    assert sum(not v.ok for v in verdicts.values()) >= 3  # the three triage routes


async def test_a_timer_removed(files: list[HistoryFile]) -> None:
    verdicts = await replay_all(files, altered.AgentRunWithoutDeadlineTimer, TriageTicket)
    for name, verdict in verdicts.items():
        if verdict.file.workflow_type != "AgentRun":
            assert verdict.ok, f"{name}: {verdict.message}"
            continue
        assert not verdict.ok, f"{name} replayed without its deadline timer"
        assert_named(verdict)
        # The history started the deadline's timer where the code now schedules a turn.
        assert event_type(verdict.file, verdict.event_id) == EventType.EVENT_TYPE_TIMER_STARTED


def checks_a_decision(file: HistoryFile) -> bool:
    """Whether the history holds the store's check of a decision (its local activity)."""
    return any(
        e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        and VERIFY_DECISION_ACTIVITY.encode() in e.SerializeToString()
        for e in file.history.events
    )


async def test_an_activity_removed(files: list[HistoryFile]) -> None:
    verdicts = await replay_all(files, altered.AgentRunWithoutDecisionCheck, TriageTicket)
    runs = [v for v in verdicts.values() if checks_a_decision(v.file)]
    assert runs
    for verdict in runs:
        assert not verdict.ok, f"{verdict.file.path.name} replayed without its decision check"
        if verdict.file.path.name.startswith("agent_run_refund_edited"):
            # A reviewer's edit goes to the gate unchecked, and the run fails on the
            # update's event before it reaches the missing marker: caught, named there.
            assert verdict.event_id is not None and "refund_edited" in "\n".join(
                verdict_lines(verdict)
            )
            continue
        assert_named(verdict)
        # The history holds the check's local-activity marker, which the code no longer
        # makes: the replayer names the local activity it cannot match.
        assert "LocalActivity" in str(verdict.message)
