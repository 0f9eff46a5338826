"""What the reader of a run (run_reading.py, over gRPC) and status's HTTP transport
beneath it (run_http.py) share: the query's name and deadline, the payloads' encoding
and the errors, in a module that loads no Temporal SDK."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import TypeVar

from pydantic import BaseModel

STATE_QUERY = "state"  # AgentRun.state
QUERY_TIMEOUT = timedelta(seconds=5)  # every `state` query
JSON_PLAIN = "json/plain"  # the encoding of the pydantic data converter's payloads

M = TypeVar("M", bound=BaseModel)


class RunNotFound(LookupError):
    """No run has this id (or none the asker may see: another tenant's is not found).
    The one such error of the service: every reader raises it."""


class StateQueryFailed(RuntimeError):
    """A worker ran the `state` query and the run's code failed it; the message says how."""


class PayloadNotJson(ValueError):
    """A result not written as JSON: not by signoff's workers and data converter."""


def one_json_payload(payloads: Sequence[tuple[str, bytes]], kind: type[M]) -> M:
    """The one payload (its encoding, its data), validated as `kind`: what the pydantic
    data converter does for it (`json/plain`, no codec), without importing the converter
    (0.03 s)."""
    if len(payloads) != 1:
        raise PayloadNotJson(f"expected one {kind.__name__} payload, found {len(payloads)}")
    [(encoding, data)] = payloads
    if encoding != JSON_PLAIN:
        raise PayloadNotJson(
            f"the {kind.__name__} is encoded as '{encoding}', not {JSON_PLAIN}: was it "
            "written by a signoff worker? An encrypted one needs the worker's "
            "SIGNOFF_PAYLOAD_KEYS here too."
        )
    return kind.model_validate_json(data)
