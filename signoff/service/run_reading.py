"""The service's one reader of a run: its description, its `state` query and its
outcome, over Temporal's bare gRPC service.

Every face reads a run's state here: `signoff status` with a service of its own
(signoff/config/temporal_service.py says why: 0.3 s of imports), the reviewer UI, the
decisions and the reconciles through `pending.run_state`, over the service of their
client (`service_of_client`). `signoff status` first tries run_http.py, a faster
transport of the same three reads for status alone; where it cannot answer, status
reads here.

Design note. These are the calls a client's workflow handle makes (`describe()`,
`query("state")`, `result()`), made on the service directly, with the handle's
semantics where a reader depends on them: the description is of the id's latest run;
the query is retried within `QUERY_TIMEOUT`, and a run no worker answers for (or no
run at all) gives None; a query the run's own code fails raises StateQueryFailed (the
client's WorkflowQueryFailedError); the outcome is the completion event of the run
described. Payloads are decrypted with the worker's payload keys when set, then
decoded as the pydantic data converter does (`json/plain`, validated by the model,
without importing the converter). The query goes by its name, not by the workflow
class: importing `workflows/agent_run.py` for a name costs 0.04 s.
tests/unit/test_run_reading.py holds the name to the workflow's and checks the decoding;
tests/workflow/test_status_reading.py checks that it reads what the handle reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel
from temporalio.api.common.v1 import Payload, WorkflowExecution
from temporalio.api.enums.v1 import HistoryEventFilterType, WorkflowExecutionStatus
from temporalio.api.workflowservice.v1 import (
    DescribeWorkflowExecutionRequest,
    DescribeWorkflowExecutionResponse,
    GetWorkflowExecutionHistoryRequest,
    QueryWorkflowRequest,
)
from temporalio.service import RPCError, RPCStatusCode

from signoff.config.payload_keys import PayloadDecryptError
from signoff.config.temporal_service import TemporalService
from signoff.service.run_terms import JSON_PLAIN as JSON_PLAIN
from signoff.service.run_terms import QUERY_TIMEOUT as QUERY_TIMEOUT
from signoff.service.run_terms import STATE_QUERY as STATE_QUERY
from signoff.service.run_terms import PayloadNotJson as PayloadNotJson
from signoff.service.run_terms import RunNotFound as RunNotFound
from signoff.service.run_terms import StateQueryFailed as StateQueryFailed
from signoff.service.run_terms import one_json_payload
from workflows.contracts import RunOutcome, RunState

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class RunDescription:
    """What Temporal says of a run's latest execution."""

    run_id: str
    execution: WorkflowExecution  # with Temporal's run id of the execution described
    status: WorkflowExecutionStatus.ValueType
    raw: DescribeWorkflowExecutionResponse

    @property
    def workflow_type(self) -> str:
        """The workflow's name: `AgentRun`, or `TriageTicket` for a triage."""
        return self.raw.workflow_execution_info.type.name

    @property
    def running(self) -> bool:
        return self.status == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING

    @property
    def completed(self) -> bool:
        return self.status == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED

    @property
    def cancelled(self) -> bool:
        return self.status == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED


async def describe_run(temporal: TemporalService, run_id: str) -> RunDescription:
    try:
        raw = await temporal.service.workflow_service.describe_workflow_execution(
            DescribeWorkflowExecutionRequest(
                namespace=temporal.namespace, execution=WorkflowExecution(workflow_id=run_id)
            ),
            retry=True,
        )
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            raise RunNotFound(run_id) from None
        raise
    info = raw.workflow_execution_info
    return RunDescription(run_id, info.execution, info.status, raw)


async def run_state(temporal: TemporalService, run_id: str) -> RunState | None:
    """The run's `state` query; None when no worker answers (or the run is gone)."""
    request = QueryWorkflowRequest(
        namespace=temporal.namespace, execution=WorkflowExecution(workflow_id=run_id)
    )
    request.query.query_type = STATE_QUERY
    try:
        response = await temporal.service.workflow_service.query_workflow(
            request, retry=True, timeout=QUERY_TIMEOUT
        )
    except RPCError as error:
        if error.status == RPCStatusCode.INVALID_ARGUMENT:  # the handler itself failed
            raise StateQueryFailed(error.message) from None
        return None
    if response.HasField("query_rejected") or not response.query_result.payloads:
        return None
    return decode_payload(await clear(temporal, response.query_result.payloads), RunState)


async def run_outcome(temporal: TemporalService, description: RunDescription) -> RunOutcome:
    """The outcome of a run `description` found completed."""
    return await completed_result(temporal, description, RunOutcome)


async def completed_result(
    temporal: TemporalService, description: RunDescription, kind: type[M]
) -> M:
    """The result of a workflow `description` found completed, validated as `kind`."""
    history = await temporal.service.workflow_service.get_workflow_execution_history(
        GetWorkflowExecutionHistoryRequest(
            namespace=temporal.namespace,
            execution=description.execution,
            history_event_filter_type=HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
            skip_archival=True,
        ),
        retry=True,
    )
    [closed] = history.history.events
    completed = closed.workflow_execution_completed_event_attributes
    return decode_payload(await clear(temporal, completed.result.payloads), kind)


async def clear(temporal: TemporalService, payloads: Sequence[Payload]) -> list[Payload]:
    """The payloads decrypted with the worker's keys (SIGNOFF_PAYLOAD_KEYS), if any."""
    if temporal.codec is None:
        return list(payloads)
    try:
        return [temporal.codec.decrypt(payload) for payload in payloads]
    except PayloadDecryptError as error:
        raise PayloadNotJson(str(error)) from None


def decode_payload(payloads: Sequence[Payload], kind: type[M]) -> M:
    """The one JSON payload, validated as `kind` (run_terms.one_json_payload)."""
    return one_json_payload(
        [
            (payload.metadata.get("encoding", b"").decode(errors="replace"), payload.data)
            for payload in payloads
        ],
        kind,
    )
