"""What the two readers of a run (run_reading.py over gRPC, run_http.py over HTTP)
share: the query's name and deadline, the payloads' encoding and the errors, in a
module that loads no Temporal SDK."""

from __future__ import annotations

from datetime import timedelta

STATE_QUERY = "state"  # AgentRun.state
QUERY_TIMEOUT = timedelta(seconds=5)  # every `state` query
JSON_PLAIN = "json/plain"  # the encoding of the pydantic data converter's payloads


class RunNotFound(LookupError):
    """No run has this id (or none the asker may see: another tenant's is not found).
    The one such error of the service: every reader raises it."""


class StateQueryFailed(RuntimeError):
    """A worker ran the `state` query and the run's code failed it; the message says how."""
