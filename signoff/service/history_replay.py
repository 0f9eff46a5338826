"""Replaying recorded histories against the installed workflow code (`signoff replay`).

Each history is replayed with the worker's data converter and every workflow type the
worker registers (workflows/registered.py), without a server. A history that no longer
replays is a run in flight that this code would break: the fix is a `workflow.patched`
gate around the change, never a new recording.

The SDK's message says what the history expected and what the code did, but not always
at which event. When the message does not carry the event id, `locate_event`
finds it: the history cut after each workflow task replays as long as the code's
commands matched so far, so the first cut that fails names the task that diverged;
among that task's commands, the event is the one the message names, else the first.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import WorkflowHistory
from temporalio.converter import DataConverter
from temporalio.runtime import Runtime, TelemetryConfig
from temporalio.worker import Replayer, WorkflowRunner
from temporalio.workflow import NondeterminismError

from signoff.config.data_converter import data_converter
from signoff.service.history_event import command_events, event_named, task_starts
from signoff.service.history_files import HistoryFile
from workflows.registered import WORKFLOW_TYPES
from workflows.sandbox import workflow_runner

# The SDK wraps core's failure in a Rust debug string; the sentence is its `message`.
CORE_MESSAGE = re.compile(r'message: "((?:[^"\\]|\\.)*)"')
CORE_TYPE = re.compile(r'r#type: "([^"]+)"')
EVENT_ID = re.compile(r"(?:HistoryEvent\(id: |event id: )(\d+)")
# What else the message may name: an activity type ('run_tool'), a patch ("change X,").
QUOTED = re.compile(r"'([^']+)'")
PATCH_NAME = re.compile(r"for change ([^\s,]+)")
UPDATE_ACCEPTED = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED


@dataclass(frozen=True)
class ReplayVerdict:
    file: HistoryFile
    nondeterminism: bool = False
    message: str | None = None
    event_id: int | None = None

    @property
    def ok(self) -> bool:
        return self.message is None

    def as_json(self) -> dict[str, Any]:
        file = self.file
        return {
            "path": str(file.path),
            "workflow_type": file.workflow_type,
            "workflow_id": file.workflow_id,
            "workflow_id_from": file.id_source,
            "run_id": file.history.run_id,
            "events": len(file.history.events),
            "ok": self.ok,
            "failure": None
            if self.ok
            else {
                "kind": "nondeterminism" if self.nondeterminism else "workflow_task_failed",
                "event_id": self.event_id,
                "message": self.message,
            },
        }


class HistoryReplayer:
    """One replayer for many histories; `workflows` defaults to what the worker runs,
    `converter` to the plain one (the worker's, `data_converter_for(settings)`, reads
    encrypted histories too)."""

    def __init__(
        self,
        workflows: Sequence[type] = WORKFLOW_TYPES,
        runner: WorkflowRunner | None = None,
        converter: DataConverter = data_converter,
    ) -> None:
        # Core's own console log would repeat each failure we report, as a Rust dump.
        runtime = Runtime(telemetry=TelemetryConfig(logging=None))
        self._replayer = Replayer(
            workflows=list(workflows),
            data_converter=converter,
            workflow_runner=runner or workflow_runner(),
            runtime=runtime,
        )

    async def replay(self, file: HistoryFile) -> ReplayVerdict:
        failure = await self._failure(file.history)
        if failure is None:
            return ReplayVerdict(file)
        message = sdk_message(failure)
        nondeterminism = isinstance(failure, NondeterminismError)
        found = EVENT_ID.search(message)
        if found:
            event_id: int | None = int(found.group(1))
        else:
            event_id = await self.locate_event(file.history, message, nondeterminism)
        return ReplayVerdict(file, nondeterminism, message, event_id)

    async def locate_event(
        self, history: WorkflowHistory, message: str, nondeterminism: bool = True
    ) -> int | None:
        """The event where replay of `history` failed (see the module note).

        A cut after task k started runs tasks 0..k and checks the commands of 0..k-1.
        So the first failing cut k means: task k-1's commands differ (nondeterminism),
        or task k itself raised (any other failure, named by its start event)."""
        events = list(history.events)
        starts = task_starts(events)
        if not starts:
            return None
        first_failing = len(starts)  # no cut fails: the last task's commands differ
        low, high = (1 if nondeterminism else 0), len(starts) - 1
        while low <= high:
            middle = (low + high) // 2
            cut = WorkflowHistory(history.workflow_id, events[: starts[middle] + 1])
            if await self._failure(cut) is None:
                low = middle + 1
            else:
                first_failing, high = middle, middle - 1
        if not nondeterminism:
            return raising_event(events, starts, min(first_failing, len(starts) - 1))
        task = first_failing - 1
        after = starts[task]
        before = starts[task + 1] if task + 1 < len(starts) else len(events)
        candidates = command_events(events[after + 1 : before])
        if not candidates:  # the code gave commands where the history has none
            return int(events[after].event_id) + 1 if after + 1 < len(events) else None
        names = QUOTED.findall(message) + PATCH_NAME.findall(message)
        named = event_named(candidates, names)
        return int((named or candidates[0]).event_id)

    async def _failure(self, history: WorkflowHistory) -> Exception | None:
        with _quiet_sdk_log():
            result = await self._replayer.replay_workflow(history, raise_on_replay_failure=False)
        return result.replay_failure


async def replay_histories(
    files: Sequence[HistoryFile], converter: DataConverter
) -> list[ReplayVerdict]:
    """Each file replayed with `converter` (the worker's, `data_converter_for`: an
    encrypted history replays with the same keys), in order."""
    replayer = HistoryReplayer(converter=converter)
    return [await replayer.replay(file) for file in files]


def raising_event(events: list[HistoryEvent], starts: list[int], task: int) -> int:
    """The event that made task `task` raise: its start, or an update that reached the
    task before (an update is written after the task that took it, so the cut that
    shows it is the next one)."""
    if task > 0:
        between = events[starts[task - 1] + 1 : starts[task]]
        updates = [event for event in between if event.event_type == UPDATE_ACCEPTED]
        if updates:
            return int(updates[0].event_id)
    return int(events[starts[task]].event_id)


def sdk_message(failure: Exception) -> str:
    """Core's sentence out of the SDK's wrapping, with the failure's type when it has one."""
    text = str(failure)
    found = CORE_MESSAGE.search(text)
    if found is None:
        return text
    message = found.group(1).replace('\\"', '"').replace("\\'", "'")
    kind = CORE_TYPE.search(text)
    if kind and not isinstance(failure, NondeterminismError):
        return f"{kind.group(1)}: {message}"
    return message


@contextmanager
def _quiet_sdk_log() -> Iterator[None]:
    """The SDK logs each failed activation with a traceback; the verdict says it instead."""
    logger = logging.getLogger("temporalio")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)
