"""Contracts leave their empty defaults out of Temporal's payloads, and only there
(workflows/wire_contract.py): read back, a payload gives the same contract; `model_dump`,
the API's JSON and the OpenAPI schema are unchanged; and every field left out has an
empty default, the one value a payload without it can mean."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from pydantic import BaseModel

import workflows.actions
import workflows.contracts
import workflows.tool_policy
from signoff.config.data_converter import data_converter
from tests.unit.test_action_hold import an_action
from workflows.contracts import ModelRef, RunOutcome, RunState, ToolCallRecord, Usage
from workflows.tool_policy import ToolPolicy
from workflows.wire_contract import WireContract

EMPTY = (None, "", 0, False, [])


def wire_contracts() -> list[type[WireContract]]:
    found = {
        value
        for module in (workflows.actions, workflows.contracts, workflows.tool_policy)
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, WireContract) and value is not WireContract
    }
    return sorted(found, key=lambda kind: kind.__name__)


def on_the_wire(value: BaseModel) -> dict[str, object]:
    [payload] = data_converter.payload_converter.to_payloads([value])
    decoded: dict[str, object] = json.loads(payload.data)
    return decoded


def read_back(value: BaseModel) -> object:
    payloads = data_converter.payload_converter.to_payloads([value])
    [decoded] = data_converter.payload_converter.from_payloads(payloads, [type(value)])
    return decoded


def an_outcome() -> RunOutcome:
    return RunOutcome(
        run_id="run-demo-1",
        status="completed",
        reason="answered",
        turns_used=2,
        usage=Usage(input_tokens=700, output_tokens=90),
        tool_calls=[ToolCallRecord(turn=1, tool_use_id="t-1", name="get_order", ok=True)],
        model=ModelRef(provider="scripted", model_id="demo"),
        scripted=True,
        final_text="Done.",
    )


@pytest.mark.parametrize("kind", wire_contracts(), ids=lambda kind: kind.__name__)
def test_every_field_left_off_the_wire_has_an_empty_default(kind: type[WireContract]) -> None:
    assert kind.WIRE_OMITS, f"{kind.__name__} names no field to leave out"
    for name in kind.WIRE_OMITS:
        field = kind.model_fields[name]
        assert not field.is_required() and field.default in EMPTY, (
            f"{kind.__name__}.{name}: only an empty default may be left out, and never changed"
        )


def test_empty_defaults_stay_off_the_wire_and_come_back() -> None:
    outcome = an_outcome()

    sent = on_the_wire(outcome)

    assert "cache_read_input_tokens" not in sent["usage"]  # type: ignore[operator]
    assert sent["tool_calls"] == [
        {"turn": 1, "tool_use_id": "t-1", "name": "get_order", "ok": True}
    ]
    for name in ("detail", "not_performed", "effects_unknown", "decisions", "turn_usage"):
        assert name not in sent
    assert sent["final_text"] == "Done."  # set: sent
    assert sent["cost_usd"] == "0"  # not named: sent
    assert read_back(outcome) == outcome


def test_a_value_other_than_the_default_is_sent() -> None:
    usage = Usage(input_tokens=10, output_tokens=2, cache_read_input_tokens=800)
    action = an_action(supersedes="b" * 64).model_copy(update={"note": "Four eyes."})

    assert on_the_wire(usage)["cache_read_input_tokens"] == 800
    assert "cache_creation_input_tokens" not in on_the_wire(usage)
    assert on_the_wire(action)["supersedes"] == "b" * 64 and on_the_wire(action)["note"]
    assert read_back(action) == action


def test_nothing_changes_off_the_wire() -> None:
    outcome = an_outcome()

    dumped = outcome.model_dump(mode="json")

    assert dumped["usage"]["cache_creation_input_tokens"] == 0
    assert dumped["tool_calls"][0]["error"] is None
    assert dumped["not_performed"] == [] and dumped["cost_usd"] == str(Decimal(0))
    assert json.loads(outcome.model_dump_json()) == dumped


def test_the_api_schema_still_names_every_field() -> None:
    schema = RunState.model_json_schema(mode="serialization")

    assert "cache_read_input_tokens" in schema["$defs"]["Usage"]["properties"]
    assert "error" in schema["$defs"]["ToolCallRecord"]["properties"]
    assert "pending_minor" in schema["$defs"]["PendingAction"]["properties"]


def test_a_tool_policy_reads_back_the_same_with_its_unset_keys_left_out() -> None:
    read = ToolPolicy(risk="read", approval="auto")
    refund = ToolPolicy(
        approval="confirm", four_eyes_above=Decimal("200"), approver_roles=("refund_approver",)
    )

    sent = on_the_wire(read)

    assert "approval_ttl" not in sent and "keep_approvals" not in sent
    assert on_the_wire(refund)["approval_ttl"] == "1d"  # filled by default: sent
    assert read_back(read) == read and read_back(refund) == refund
