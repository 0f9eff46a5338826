"""What an exported history carries, and how replay finds its workflow id (no server)."""

from __future__ import annotations

import json
from pathlib import Path

from temporalio.client import WorkflowHistory

from signoff.service.history_export import file_name, history_json, tenant_of, with_workflow_id
from signoff.service.history_files import STARTED_ATTRIBUTES, load

FOLDER = Path(__file__).parent.parent / "histories"
# Recorded on the time-skipping server, which does not write the id into the start event.
OLD = next(FOLDER.glob("agent_run_refund_approved__*.json"))


def test_an_export_carries_the_workflow_id_the_server_left_out(tmp_path: Path) -> None:
    document = json.loads(OLD.read_text(encoding="utf-8"))
    assert "workflowId" not in document["events"][0][STARTED_ATTRIBUTES]
    history = WorkflowHistory.from_json("run-demo-8f1fbeab3069", document)
    exported = tmp_path / "anything.json"
    exported.write_text(history_json(with_workflow_id(history)), encoding="utf-8")
    loaded = load(exported)
    assert (loaded.workflow_id, loaded.id_source) == ("run-demo-8f1fbeab3069", "history")
    # Nothing else changed: the events are the recorded ones, the id aside.
    expected = list(history.events)
    started = type(expected[0])()
    started.CopyFrom(expected[0])
    started.workflow_execution_started_event_attributes.workflow_id = "run-demo-8f1fbeab3069"
    assert list(loaded.history.events) == [started, *expected[1:]]


async def test_the_tenant_is_read_from_the_runs_own_request() -> None:
    history = WorkflowHistory.from_json("x", OLD.read_text(encoding="utf-8"))
    assert await tenant_of(history.events[0]) == "demo"


def test_file_names_are_safe_and_distinct() -> None:
    taken: set[str] = set()
    assert file_name("run-demo-1", "a", taken) == "run-demo-1.json"
    assert file_name("run-demo-1", "b", taken) == "run-demo-1.b.json"
    assert file_name("../etc/passwd", "c", taken) == ".._etc_passwd.json"
