"""What `signoff status` reads without the SDK's client (signoff/service/run_reading.py):
the `state` query by the workflow's own name, and a result decoded as the pydantic data
converter decodes it, with a clear error for a payload it did not write."""

from __future__ import annotations

import pytest
from temporalio.api.common.v1 import Payload

from signoff.config.data_converter import data_converter
from signoff.service.run_reading import STATE_QUERY, PayloadNotJson, decode_payload
from tests.unit.test_wire_contract import an_outcome
from workflows.agent_run import AgentRun
from workflows.contracts import RunOutcome


def test_the_state_query_is_the_workflows_own() -> None:
    assert STATE_QUERY == AgentRun.state.__temporal_query_definition.name  # type: ignore[attr-defined]


def test_a_result_decodes_as_the_data_converter_decodes_it() -> None:
    payloads = data_converter.payload_converter.to_payloads([an_outcome()])

    assert decode_payload(payloads, RunOutcome) == an_outcome()


def test_a_payload_signoff_did_not_write_is_refused_clearly() -> None:
    encrypted = Payload(metadata={"encoding": b"binary/encrypted"}, data=b"\x00\x01")

    with pytest.raises(PayloadNotJson, match="encoded as 'binary/encrypted'.*payload codec"):
        decode_payload([encrypted], RunOutcome)
    with pytest.raises(PayloadNotJson, match="expected one RunOutcome payload, found 0"):
        decode_payload([], RunOutcome)
