"""Every recorded history still replays against today's workflow code.

A change to workflow code that alters the commands an old run recorded fails here; keep
it behind `workflow.patched(...)` instead. Record new scenarios with
`python -m tests.replay.record_histories NAME`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from tests.replay.record_histories import ID_SEPARATOR
from workflows.agent_run import AgentRun
from workflows.triage import TriageTicket

HISTORIES = sorted((Path(__file__).parent.parent / "histories").glob("*.json"))


def test_histories_are_there() -> None:
    # An empty folder would make the replay below pass by testing nothing.
    assert len(HISTORIES) >= 5


@pytest.mark.parametrize(
    "path", HISTORIES, ids=[path.stem.split(ID_SEPARATOR)[0] for path in HISTORIES]
)
async def test_history_replays(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    workflow_id = path.stem.split(ID_SEPARATOR, 1)[1]
    history = WorkflowHistory.from_json(workflow_id, document)
    replayer = Replayer(workflows=[AgentRun, TriageTicket], data_converter=pydantic_data_converter)
    result = await replayer.replay_workflow(history)
    assert result.replay_failure is None
