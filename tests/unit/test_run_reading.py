"""What `signoff status` reads without the SDK's client (signoff/service/run_reading.py):
the `state` query by the workflow's own name, and a result decoded as the pydantic data
converter decodes it, with a clear error for a payload it did not write."""

from __future__ import annotations

import base64
from typing import Any, cast

import pytest
from temporalio.api.common.v1 import Payload

from signoff.config.data_converter import data_converter, data_converter_for
from signoff.config.payload_keys import payload_cipher
from signoff.config.settings import Settings
from signoff.config.temporal_service import TemporalService
from signoff.service.run_reading import STATE_QUERY, PayloadNotJson, clear, decode_payload
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

    with pytest.raises(PayloadNotJson, match="encoded as 'binary/encrypted'.*SIGNOFF_PAYLOAD_KEYS"):
        decode_payload([encrypted], RunOutcome)
    with pytest.raises(PayloadNotJson, match="expected one RunOutcome payload, found 0"):
        decode_payload([], RunOutcome)


async def test_an_encrypted_result_is_read_with_the_workers_keys() -> None:
    keys = "k1:" + base64.b64encode(b"r" * 32).decode()
    converter = data_converter_for(Settings(payload_keys=keys))
    sealed = await converter.encode([an_outcome()])
    reading = TemporalService(
        cast(Any, None), "default", payload_cipher(Settings(payload_keys=keys))
    )
    assert decode_payload(await clear(reading, sealed), RunOutcome) == an_outcome()
    other = "k2:" + base64.b64encode(b"o" * 32).decode()
    elsewhere = TemporalService(
        cast(Any, None), "default", payload_cipher(Settings(payload_keys=other))
    )
    with pytest.raises(PayloadNotJson, match="'k1'"):
        await clear(elsewhere, sealed)
