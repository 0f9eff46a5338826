"""Reading workflow histories from JSON files, as `temporal workflow show --output json`
and `signoff history export` write them.

A history does not always say which workflow it belongs to, and replay needs the id
(a run's action hashes bind it). In order, the id is taken from:
1. the start event's `workflowId` (servers since 1.21 write it; `signoff history export`
   always does);
2. the file name `NAME__WORKFLOW_ID.json` (the convention of tests/histories/);
3. the file name itself, `WORKFLOW_ID.json`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from google.protobuf.json_format import ParseError
from temporalio.client import WorkflowHistory

ID_SEPARATOR = "__"
STARTED = "EVENT_TYPE_WORKFLOW_EXECUTION_STARTED"
STARTED_ATTRIBUTES = "workflowExecutionStartedEventAttributes"

IdSource = Literal["history", "file name"]


class HistoryFileError(ValueError):
    """A path that is not a readable history; the message names it and says why."""


@dataclass(frozen=True)
class HistoryFile:
    path: Path
    history: WorkflowHistory
    workflow_type: str
    id_source: IdSource

    @property
    def workflow_id(self) -> str:
        return self.history.workflow_id


def expand(paths: Iterable[Path]) -> list[Path]:
    """Each file as given, each folder's `*.json` files by name; refuses what is neither."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            files = sorted(child for child in path.glob("*.json") if child.is_file())
            if not files:
                raise HistoryFileError(f"{path}: the folder holds no .json history files.")
            found.extend(files)
        elif path.is_file():
            found.append(path)
        else:
            raise HistoryFileError(f"{path}: no such file or folder.")
    return found


def load(path: Path) -> HistoryFile:
    """The history in `path`; HistoryFileError if it is not one."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise HistoryFileError(f"{path}: cannot be read ({error}).") from None
    except json.JSONDecodeError as error:
        raise HistoryFileError(f"{path}: not JSON ({error}).") from None
    started = _start_event(path, document)
    attributes = started.get(STARTED_ATTRIBUTES) or {}
    workflow_type = str((attributes.get("workflowType") or {}).get("name") or "")
    if not workflow_type:
        raise HistoryFileError(f"{path}: the start event names no workflow type.")
    workflow_id, source = _workflow_id(path, attributes)
    try:
        history = WorkflowHistory.from_json(workflow_id, document)
    except (ParseError, ValueError, TypeError) as error:
        raise HistoryFileError(f"{path}: not a valid workflow history ({error}).") from None
    return HistoryFile(path, history, workflow_type, source)


def _start_event(path: Path, document: Any) -> dict[str, Any]:
    hint = "expected the JSON of `temporal workflow show --output json`"
    if not isinstance(document, dict) or not isinstance(document.get("events"), list):
        raise HistoryFileError(f"{path}: not a workflow history: no 'events' list ({hint}).")
    events = document["events"]
    if not events or not isinstance(events[0], dict):
        raise HistoryFileError(f"{path}: the history has no events.")
    first = events[0]
    if first.get("eventType") not in (STARTED, "WorkflowExecutionStarted"):
        raise HistoryFileError(
            f"{path}: the first event is {first.get('eventType')!r}, not the workflow's "
            f"start: the history is cut ({hint})."
        )
    return first


def _workflow_id(path: Path, attributes: dict[str, Any]) -> tuple[str, IdSource]:
    recorded = attributes.get("workflowId")
    if isinstance(recorded, str) and recorded:
        return recorded, "history"
    stem = path.name.removesuffix(".json")
    if ID_SEPARATOR in stem:
        return stem.split(ID_SEPARATOR, 1)[1], "file name"
    return stem, "file name"
