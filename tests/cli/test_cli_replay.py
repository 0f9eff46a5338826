"""`signoff replay` on the recorded histories: ok, a corrupted copy, --json, bad input.

No server: replay needs only the files and the installed workflow code.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from signoff.config.settings import get_settings
from signoff.wiring.app import app

FOLDER = Path(__file__).parent.parent / "histories"
APPROVED = next(FOLDER.glob("agent_run_refund_approved__*.json"))
TRACKING = next(FOLDER.glob("triage_tracking__*.json"))


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path / "home"))
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def corrupted_copy(folder: Path) -> tuple[Path, int]:
    """APPROVED with its first tool call renamed: what the code schedules differs there."""
    document = json.loads(APPROVED.read_text(encoding="utf-8"))
    scheduled = [
        event
        for event in document["events"]
        if event["eventType"] == "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED"
        and event["activityTaskScheduledEventAttributes"]["activityType"]["name"] == "run_tool"
    ]
    event = scheduled[0]
    event["activityTaskScheduledEventAttributes"]["activityType"]["name"] = "send_email"
    path = folder / APPROVED.name.replace("agent_run_refund_approved", "corrupted")
    path.write_text(json.dumps(document), encoding="utf-8")
    return path, int(event["eventId"])


def test_every_recorded_history_replays(cli: CliRunner) -> None:
    result = cli.invoke(app, ["replay", str(FOLDER)])
    count = len(list(FOLDER.glob("*.json")))
    assert result.exit_code == 0, result.output
    assert sum(line.startswith("ok ") for line in result.stdout.splitlines()) == count
    assert f"{count} histories replayed: {count} ok, 0 failed" in result.stdout


def test_a_corrupted_history_fails_naming_file_event_and_both_sides(
    cli: CliRunner, tmp_path: Path
) -> None:
    shutil.copy(TRACKING, tmp_path)
    corrupted, event_id = corrupted_copy(tmp_path)
    result = cli.invoke(app, ["replay", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert f"ok      {tmp_path / TRACKING.name}" in result.stdout
    assert f"FAILED  {corrupted}" in result.stdout
    assert f"non-determinism at event {event_id}:" in result.stdout
    # What the history holds against what the code does now, as the SDK says it.
    assert "'send_email'" in result.stdout and "'run_tool'" in result.stdout
    assert "2 histories replayed: 1 ok, 1 failed" in result.stdout


def test_json_for_ci(cli: CliRunner, tmp_path: Path) -> None:
    corrupted, event_id = corrupted_copy(tmp_path)
    result = cli.invoke(app, ["replay", "--json", str(TRACKING), str(corrupted)])
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert (document["total"], document["ok"], document["failed"]) == (2, 1, 1)
    good, bad = document["histories"]
    assert good["ok"] is True and good["failure"] is None
    assert good["workflow_type"] == "TriageTicket"
    assert good["workflow_id"] == TRACKING.stem.split("__", 1)[1]
    assert good["workflow_id_from"] == "file name"
    assert bad["ok"] is False and bad["path"] == str(corrupted)
    assert bad["failure"]["kind"] == "nondeterminism"
    assert bad["failure"]["event_id"] == event_id
    assert "send_email" in bad["failure"]["message"]


def test_a_history_that_names_its_workflow_id_needs_no_file_name(
    cli: CliRunner, tmp_path: Path
) -> None:
    recorded = next(FOLDER.glob("agent_run_order_not_found__*.json"))
    renamed = tmp_path / "exported.json"
    shutil.copy(recorded, renamed)
    result = cli.invoke(app, ["replay", "--json", str(renamed)])
    assert result.exit_code == 0, result.output
    [verdict] = json.loads(result.stdout)["histories"]
    assert verdict["workflow_id"] == recorded.stem.split("__", 1)[1]
    assert verdict["workflow_id_from"] == "history"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "no such file or folder"),
        ("not json", "not JSON"),
        ('{"runs": []}', "not a workflow history: no 'events' list"),
        ('{"events": []}', "the history has no events"),
        (
            '{"events": [{"eventId": "5", "eventType": "EVENT_TYPE_TIMER_STARTED"}]}',
            "not the workflow's start",
        ),
    ],
)
def test_bad_input_is_refused_with_exit_2(
    cli: CliRunner, tmp_path: Path, content: str | None, said: str
) -> None:
    path = tmp_path / "history.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result = cli.invoke(app, ["replay", str(APPROVED), str(path)])
    assert result.exit_code == 2
    assert said in result.stderr and str(path) in result.stderr
    assert result.stdout == ""  # nothing replayed: the input is wrong as a whole


def test_a_folder_without_histories_is_refused(cli: CliRunner, tmp_path: Path) -> None:
    result = cli.invoke(app, ["replay", str(tmp_path)])
    assert result.exit_code == 2
    assert "holds no .json history files" in result.stderr


def test_a_history_under_the_wrong_workflow_id_fails_where_the_decision_acted(
    cli: CliRunner, tmp_path: Path
) -> None:
    # The action hash binds the run id: under another id the decision matches nothing.
    misnamed = tmp_path / "refund_approved__run-demo-not-this-one.json"
    shutil.copy(APPROVED, misnamed)
    result = cli.invoke(app, ["replay", "--json", str(misnamed)])
    assert result.exit_code == 1
    [verdict] = json.loads(result.stdout)["histories"]
    assert verdict["workflow_id"] == "run-demo-not-this-one"
    failure = verdict["failure"]
    assert failure["kind"] == "nondeterminism"
    events = json.loads(APPROVED.read_text(encoding="utf-8"))["events"]
    kinds = {int(event["eventId"]): event["eventType"] for event in events}
    # The reviewer's decision arrived, but under this id it names no pending action: the
    # expiry timer it cancelled in the recorded run stays, and replay stops there.
    assert kinds[failure["event_id"]] == "EVENT_TYPE_TIMER_CANCELED"
    accepted = [
        event_id
        for event_id, kind in kinds.items()
        if kind == "EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED"
    ]
    assert accepted and accepted[0] < failure["event_id"]


def test_a_workflow_type_signoff_does_not_register_fails(cli: CliRunner, tmp_path: Path) -> None:
    document = json.loads(TRACKING.read_text(encoding="utf-8"))
    started = document["events"][0]["workflowExecutionStartedEventAttributes"]
    started["workflowType"]["name"] = "SomeoneElsesWorkflow"
    path = tmp_path / TRACKING.name
    path.write_text(json.dumps(document), encoding="utf-8")
    result = cli.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1
    assert "FAILED" in result.stdout and "SomeoneElsesWorkflow is not registered" in result.stdout
