"""Exporting run histories as JSON (`signoff history export`), for `signoff replay`.

The file is what `temporal workflow show --output json` writes and
`WorkflowHistory.from_json` reads: `{"events": [...]}` in protobuf's JSON form. One
addition keeps a file usable wherever it is copied: when the server did not write the
workflow id into the start event (servers before 1.21, the time-skipping test server),
it is put there, in the field the protocol has for it. Replay needs the id, and a
history alone would not carry it.

A run is named by its workflow id, as in `signoff status`. With a tenant, only a run
whose own request (its start event) names that tenant is exported; another tenant's
run is "not found", never "not yours".
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowHistory
from temporalio.service import RPCError, RPCStatusCode

from signoff.service.handles import Runs, client_of
from signoff.service.history_files import STARTED_ATTRIBUTES
from signoff.service.run_reading import RunNotFound
from workflows.contract_base import tenant_id_problem
from workflows.contracts import TENANT_ATTRIBUTE

# A workflow id may hold any character; a file name gets these only.
UNSAFE_IN_NAME = re.compile(r"[^A-Za-z0-9._:-]")


class QueryRejected(ValueError):
    """Temporal refused the visibility query; the message is the server's."""


class TemporalRefused(RuntimeError):
    """Temporal answered a call with an error other than "not found" or a refused query
    (unavailable, permission denied...); the message is the server's."""


def temporal_refusal(error: RPCError) -> QueryRejected | TemporalRefused:
    """The service's exception for Temporal's answer to a listing or a history read."""
    if error.status == RPCStatusCode.INVALID_ARGUMENT:
        return QueryRejected(error.message)
    return TemporalRefused(error.message)


@dataclass(frozen=True)
class ExportReport:
    written: tuple[Path, ...] = ()
    failed: tuple[str, ...] = ()  # "RUN: why", one a run


async def history_document(
    runs: Runs, run_id: str, tenant_id: str | None = None, execution: str | None = None
) -> dict[str, Any]:
    """The run's history as JSON; RunNotFound if there is none (for this tenant),
    TemporalRefused if Temporal would not give it."""
    client = client_of(runs)
    handle = client.get_workflow_handle(run_id, run_id=execution)
    try:
        history = await handle.fetch_history()
    except RPCError as error:
        if error.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
            raise RunNotFound(run_id) from None
        raise TemporalRefused(error.message) from None
    if tenant_id is not None and await tenant_of(history.events[0], client) != tenant_id:
        raise RunNotFound(run_id)
    return with_workflow_id(history)


def with_workflow_id(history: WorkflowHistory) -> dict[str, Any]:
    document = history.to_json_dict()
    started = document["events"][0].setdefault(STARTED_ATTRIBUTES, {})
    started.setdefault("workflowId", history.workflow_id)
    return document


async def tenant_of(started: HistoryEvent, client: Client | None = None) -> str | None:
    """The tenant in the run's own request: the first input of its start event, through
    the client's payload codec when it has one (an encrypted history). The file written
    keeps the payloads as the server holds them: encrypted stays encrypted."""
    payloads = list(started.workflow_execution_started_event_attributes.input.payloads)
    if not payloads:
        return None
    codec = client.data_converter.payload_codec if client is not None else None
    try:
        if codec is not None:
            payloads = await codec.decode(payloads[:1])
        request = json.loads(payloads[0].data)
    except ValueError:  # not JSON, or a key this process does not hold: not provably theirs
        return None
    tenant = request.get("tenant_id") if isinstance(request, dict) else None
    return tenant if isinstance(tenant, str) else None


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path` readable and writable by its owner only (0600), whatever the
    umask, and an existing file too: a history holds ticket text and customer names."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # a file that existed keeps its old mode otherwise
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)


def history_json(document: dict[str, Any]) -> str:
    """Indented as the temporal CLI writes it."""
    return json.dumps(document, indent=2) + "\n"


def tenant_query(query: str, tenant_id: str | None) -> str:
    if tenant_id is None:
        return query
    problem = tenant_id_problem(tenant_id)
    if problem is not None:  # it goes into the query: never let it be more than an id
        raise ValueError(problem)
    return f"({query}) AND {TENANT_ATTRIBUTE} = '{tenant_id}'"


async def count_matching(runs: Runs, query: str) -> int:
    """How many runs `query` matches; QueryRejected or TemporalRefused."""
    client = client_of(runs)
    try:
        return (await client.count_workflows(query)).count
    except RPCError as error:
        raise temporal_refusal(error) from None


async def export_matching(
    runs: Runs,
    query: str,
    folder: Path,
    tenant_id: str | None,
    progress: Callable[[Path], None],
) -> ExportReport:
    """Every run `query` matches, one file each in `folder` (made if missing);
    QueryRejected or TemporalRefused as `count_matching`, OSError for the folder."""
    client = client_of(runs)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    failed: list[str] = []
    taken: set[str] = set()
    try:
        async for execution in client.list_workflows(tenant_query(query, tenant_id)):
            try:
                document = await history_document(runs, execution.id, tenant_id, execution.run_id)
            except RunNotFound:  # deleted since it was listed, or not the tenant's own
                failed.append(f"{execution.id}: its history is gone or not the tenant's")
                continue
            path = folder / file_name(execution.id, execution.run_id, taken)
            write_private(path, history_json(document))
            written.append(path)
            progress(path)
    except RPCError as error:
        raise temporal_refusal(error) from None
    return ExportReport(tuple(written), tuple(failed))


def file_name(workflow_id: str, run_id: str | None, taken: set[str]) -> str:
    """`WORKFLOW_ID.json`; a second run of one workflow id adds its run id. The file
    name is a convenience: the id that replay uses is in the start event."""
    stem = UNSAFE_IN_NAME.sub("_", workflow_id)
    name = f"{stem}.json"
    if name in taken:
        name = f"{stem}.{run_id}.json"
    taken.add(name)
    return name
