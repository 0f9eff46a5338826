"""A refund's command names, on the wire, the proof and the record its trail would carry
twice (workflows/command_wire.py): read back, it is the very command the workflow built,
which the effect then checks whole."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from signoff.config.data_converter import data_converter
from workflows.actions import RefundCommand
from workflows.command_wire import PROOF_AT, RECORD_AT

HISTORIES = Path(__file__).parents[1] / "histories"


def recorded_command() -> RefundCommand:
    """The approved refund's command, from its recorded history."""
    [path] = HISTORIES.glob("agent_run_refund_approved__*.json")
    for event in json.loads(path.read_text())["events"]:
        scheduled = event.get("activityTaskScheduledEventAttributes")
        if scheduled and scheduled["activityType"]["name"] == "execute_refund":
            payload = base64.b64decode(scheduled["input"]["payloads"][0]["data"])
            return RefundCommand.model_validate_json(payload)
    raise AssertionError("no execute_refund in the recorded history")


def wire(command: RefundCommand) -> bytes:
    [payload] = data_converter.payload_converter.to_payloads([command])
    return payload.data


def read_back(command: RefundCommand) -> RefundCommand:
    payloads = data_converter.payload_converter.to_payloads([command])
    [back] = data_converter.payload_converter.from_payloads(payloads, [RefundCommand])
    assert isinstance(back, RefundCommand)
    return back


def test_an_approvals_proof_and_record_travel_once_and_come_back_in_place() -> None:
    command = recorded_command()
    assert command.trail and command.trail[0].proof in command.proofs  # what is saved

    sent = wire(command)
    [event] = json.loads(sent)["trail"]

    assert "proof" not in event and "record" not in event
    assert (event[PROOF_AT], event[RECORD_AT]) == (0, 0)
    assert read_back(command) == command
    assert len(sent) < len(command.model_dump_json()) - 500
    # Off the wire nothing changes.
    assert command.model_dump(mode="json")["trail"][0]["proof"]["signature"]


def test_a_proof_the_command_does_not_hold_travels_whole() -> None:
    command = recorded_command()
    [event] = command.trail
    other = event.proof.model_copy(update={"nonce": "0" * 32}) if event.proof else None
    changed = command.model_copy(update={"trail": [event.model_copy(update={"proof": other})]})

    [sent] = json.loads(wire(changed))["trail"]

    assert PROOF_AT not in sent and sent["proof"]["nonce"] == "0" * 32
    assert read_back(changed) == changed


def test_an_index_that_names_nothing_is_refused() -> None:
    data = json.loads(wire(recorded_command()))
    data["trail"][0][PROOF_AT] = 7
    with pytest.raises(ValidationError, match=PROOF_AT):
        RefundCommand.model_validate_json(json.dumps(data))
