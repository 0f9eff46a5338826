"""One run as `signoff status` shows it, read over the Temporal frontend's HTTP API: a
transport beneath the service's one reader of a run (run_reading.py), for status alone,
which it must answer in 0.3 s. It reads what run_reading reads, decodes the payloads
with the same function (run_terms.one_json_payload) and raises the same errors; where
it cannot read exactly that, it gives way to run_reading. No other face uses it.

Design note. The gRPC path (run_reading.py) imports temporalio's service and its
protobuf modules: 0.2 s of a status's CPU, for three reads. The frontend serves the
same three calls as JSON over HTTP (`temporal server start-dev --http-port`, a
cluster's frontend `httpPort`), which the standard library reads:
- the description: `GET .../workflows/{id}`;
- the `state` query: `POST .../workflows/{id}/query/state`, which waits for a worker
  at most `QUERY_TIMEOUT` (the `Grpc-Timeout` header the gateway passes on);
- the close event of the execution described: `GET .../workflows/{id}/history`.
Asked with `Accept: application/json+no-payload-shorthand`, payloads come as the worker
wrote them (metadata and base64 data) and are decoded as the gRPC path decodes them.

This path answers only where it reads exactly what the gRPC path would; elsewhere
`read_over_http` returns None and status takes the gRPC path, as before:
- no HTTP address is known (settings.resolved_temporal_http_address);
- the connection carries an API key (TLS and mutual TLS are read over HTTPS with the
  gRPC path's certificates: run_http_tls.py);
- payloads are encrypted (the cipher opens protobuf payloads);
- the run is a triage (its own reader);
- no run has the id: the gRPC path says so, from the cluster the worker uses, whatever
  answers at the HTTP address;
- the HTTP API is not there or answers what this module does not expect.
"""

from __future__ import annotations

import base64
import http.client
import json
import ssl
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote, urlencode

from signoff.config.settings import Settings
from signoff.service.retries import Retry
from signoff.service.run_http_tls import NamedHttps, NoHttpTls, tls_context
from signoff.service.run_terms import (
    QUERY_TIMEOUT,
    STATE_QUERY,
    M,
    StateQueryFailed,
    one_json_payload,
)
from workflows.contracts import RunOutcome, RunState

AGENT_RUN = "AgentRun"
CANONICAL_JSON = "application/json+no-payload-shorthand"
CONNECT_SECONDS = 2.0
STATUS_PREFIX = "WORKFLOW_EXECUTION_STATUS_"
CODE_INVALID_ARGUMENT = 3  # google.rpc.Code in the gateway's error: the run's code failed it


class HttpUnusable(Exception):
    """The HTTP API did not answer as expected: take the gRPC path."""


@dataclass(frozen=True)
class RunReading:
    """What status shows of an `AgentRun`: Temporal's status of its latest execution
    (RUNNING, COMPLETED, CANCELED, ...), its steps being retried, and its `state` while
    running (None when no worker answers) or its outcome once completed."""

    status: str
    retries: list[Retry] = field(default_factory=list)
    state: RunState | None = None
    outcome: RunOutcome | None = None

    @property
    def cancelled(self) -> bool:
        return self.status == "CANCELED"


def read_over_http(settings: Settings, run_id: str) -> RunReading | None:
    """The run read over HTTP, or None where the gRPC path must read it (see above).
    Raises StateQueryFailed as the gRPC path does."""
    address = settings.resolved_temporal_http_address
    if address is None or settings.payload_keys is not None:
        return None
    try:
        context = tls_context(settings)
    except (NoHttpTls, OSError, ValueError):  # unreadable files: gRPC says what is wrong
        return None
    api = HttpApi(address, settings.temporal_namespace, context, settings.temporal_tls_server_name)
    try:
        return api.read(run_id)
    except (OSError, http.client.HTTPException, HttpUnusable, ValueError, KeyError, TypeError):
        return None
    finally:
        api.close()


class HttpApi:
    """The three calls, on one kept-alive connection."""

    def __init__(
        self,
        address: str,
        namespace: str,
        tls: ssl.SSLContext | None = None,
        server_name: str | None = None,
    ) -> None:
        host, _, port = address.rpartition(":")
        host, timeout = host.strip("[]"), QUERY_TIMEOUT.total_seconds() + CONNECT_SECONDS
        self.connection = (
            http.client.HTTPConnection(host, int(port), timeout=timeout)
            if tls is None
            else NamedHttps(host, int(port), context=tls, server_name=server_name, timeout=timeout)
        )
        self.base = f"/api/v1/namespaces/{quote(namespace, safe='')}/workflows"

    def close(self) -> None:
        self.connection.close()

    def read(self, run_id: str) -> RunReading | None:
        path = f"{self.base}/{quote(run_id, safe='')}"
        code, description = self.call("GET", path)
        if code is not None:  # not found included
            raise HttpUnusable(f"describe answered code {code}")
        info = description["workflowExecutionInfo"]
        if info["type"]["name"] != AGENT_RUN:
            return None
        status = str(info["status"]).removeprefix(STATUS_PREFIX)
        if status == "RUNNING":
            retries = retries_of(description.get("pendingActivities", []))
            return RunReading(status, retries, state=self.state(path))
        if status == "COMPLETED":
            return RunReading(status, outcome=self.outcome(path, info["execution"]["runId"]))
        return RunReading(status)

    def state(self, path: str) -> RunState | None:
        code, answer = self.call(
            "POST",
            f"{path}/query/{STATE_QUERY}",
            body={"query": {"queryType": STATE_QUERY}},
            timeout=QUERY_TIMEOUT,
        )
        if code == CODE_INVALID_ARGUMENT:
            raise StateQueryFailed(str(answer.get("message", "")))
        if code is not None or "queryRejected" in answer:
            return None  # no worker answered in time, or the run is gone
        payloads = answer.get("queryResult", {}).get("payloads", [])
        return decoded(payloads, RunState) if payloads else None

    def outcome(self, path: str, execution_run_id: str) -> RunOutcome:
        query = urlencode(
            {
                "execution.runId": execution_run_id,
                "historyEventFilterType": "HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT",
                "skipArchival": "true",
            }
        )
        code, history = self.call("GET", f"{path}/history?{query}")
        if code is not None:
            raise HttpUnusable(f"history answered code {code}")
        [closed] = history["history"]["events"]
        result = closed["workflowExecutionCompletedEventAttributes"]["result"]
        return decoded(result["payloads"], RunOutcome)

    def call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        timeout: timedelta | None = None,
    ) -> tuple[int | None, dict[str, Any]]:
        """The answer's JSON, with the gateway's error code when it is an error."""
        headers = {"Accept": CANONICAL_JSON}
        if timeout is not None:  # the gateway hands it on as the call's deadline
            headers["Grpc-Timeout"] = f"{int(timeout.total_seconds() * 1000)}m"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.connection.request(method, path, body=data, headers=headers)
        response = self.connection.getresponse()
        answer = json.loads(response.read() or b"{}")
        if not isinstance(answer, dict):
            raise HttpUnusable("the answer is not a JSON object")
        if response.status == http.client.OK:
            return None, answer
        code = answer.get("code")
        if not isinstance(code, int):  # not the gateway's error: something else answers
            raise HttpUnusable(f"HTTP {response.status} without a gateway error code")
        return code, answer


def decoded(payloads: list[dict[str, Any]], kind: type[M]) -> M:
    """The one payload of the answer's JSON, validated as `kind`: its metadata and data
    come base64-encoded (run_terms.one_json_payload)."""
    return one_json_payload(
        [
            (
                base64.b64decode(payload.get("metadata", {}).get("encoding", "")).decode(
                    errors="replace"
                ),
                base64.b64decode(payload.get("data", "")),
            )
            for payload in payloads
        ],
        kind,
    )


def retries_of(pending_activities: list[dict[str, Any]]) -> list[Retry]:
    """retries.retries_in, on the description's JSON."""
    retries = []
    for pending in pending_activities:
        attempt = int(pending.get("attempt", 0))
        if attempt <= 1:
            continue
        failure = pending.get("lastFailure", {}).get("message", "")
        next_at = pending.get("nextAttemptScheduleTime")
        retries.append(
            Retry(
                pending["activityType"]["name"],
                attempt,
                failure,
                datetime.fromisoformat(next_at) if next_at else None,
            )
        )
    return retries
